#include "failure.hpp"

#include <cctype>
#include <new>

#include "harness/core/wait_timed_out.hpp"

namespace scaletune::mpi {

results::Status classify_failure(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr) return results::Status::oom;
  if (dynamic_cast<const core::WaitTimedOut*>(&e) != nullptr) return results::Status::timeout;
  const std::string what = e.what();
  if (what.find("Kokkos failed to allocate memory") != std::string::npos)
    return results::Status::oom;
  return results::Status::error;
}

std::string one_line(const std::string& text) {
  static const std::string kTraceback = "Traceback functionality not available";
  std::string out;
  for (char c : text) {
    const bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  if (const auto at = out.rfind(kTraceback); at != std::string::npos) out.erase(at);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace scaletune::mpi
