#include "harness/job/job_error.hpp"

#include <utility>

namespace scaletune::job {
namespace {

// Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on ":" + std::to_string(n).
void append_position(std::string& text, int number) {
  text += ':';
  text += std::to_string(number);
}

std::string compose(const std::string& file, int line, int column, const std::string& key,
                    const std::string& message) {
  std::string text = file;
  if (line > 0) append_position(text, line);
  if (line > 0 && column > 0) append_position(text, column);
  text += ": ";
  if (!key.empty()) text.append("key '").append(key).append("': ");
  return text.append(message);
}

}  // namespace

JobError::JobError(std::string file, int line, int column, std::string key, std::string message)
    : std::runtime_error(compose(file, line, column, key, message)),
      m_file(std::move(file)),
      m_line(line),
      m_column(column),
      m_key(std::move(key)),
      m_message(std::move(message)) {}

}  // namespace scaletune::job
