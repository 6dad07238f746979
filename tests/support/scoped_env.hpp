#pragma once
// An environment variable set (or unset) for a scope and restored after, for tests.

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

namespace scaletune::testing_support {

/// Sets `name` to `value` (unsets it for nullopt) and restores the old value, or unsets it again,
/// on scope exit.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::optional<std::string>& value) : m_name(std::move(name)) {
    if (const char* old = ::getenv(m_name.c_str())) m_old = old;
    if (value)
      ::setenv(m_name.c_str(), value->c_str(), 1);
    else
      ::unsetenv(m_name.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    if (m_old)
      ::setenv(m_name.c_str(), m_old->c_str(), 1);
    else
      ::unsetenv(m_name.c_str());
  }

 private:
  std::string m_name;
  std::optional<std::string> m_old;
};

}  // namespace scaletune::testing_support
