#include "host_timer.hpp"

namespace scaletune::core {

std::vector<double> HostTimer::intervals() {
  std::vector<double> elapsed_s;
  for (std::size_t i = 1; i < m_marks.size(); ++i)
    elapsed_s.push_back(std::chrono::duration<double>(m_marks[i] - m_marks[i - 1]).count());
  m_marks.clear();
  return elapsed_s;
}

}  // namespace scaletune::core
