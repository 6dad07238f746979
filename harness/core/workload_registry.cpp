#include "workload_registry.hpp"

#include <stdexcept>

namespace scaletune::core {

void WorkloadRegistry::add(const std::string& kind, WorkloadFactory factory,
                           ConfigDescriber describe, RanksAlike ranks_alike) {
  if (!m_entries
           .emplace(kind,
                    WorkloadEntry{std::move(factory), std::move(describe), std::move(ranks_alike)})
           .second)
    throw std::logic_error("workload kind '" + kind + "' registered twice");
}

const WorkloadEntry& WorkloadRegistry::entry(const std::string& kind) const {
  const auto it = m_entries.find(kind);
  if (it != m_entries.end()) return it->second;
  std::string known;
  for (const auto& k : kinds()) known += (known.empty() ? "" : ", ") + k;
  throw std::invalid_argument("no workload of kind '" + kind + "' in this build (built: " + known +
                              ")");
}

std::vector<std::string> WorkloadRegistry::kinds() const {
  std::vector<std::string> names;
  for (const auto& [k, e] : m_entries) names.push_back(k);
  return names;
}

}  // namespace scaletune::core
