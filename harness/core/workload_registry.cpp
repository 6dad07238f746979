#include "workload_registry.hpp"

#include <map>
#include <stdexcept>

namespace scaletune::core {

namespace {

struct Registered {
  WorkloadFactory factory;
  ConfigDescriber describe;
};

std::map<std::string, Registered>& registry() {
  static std::map<std::string, Registered> r;
  return r;
}

const Registered& registered(const std::string& kind) {
  const auto it = registry().find(kind);
  if (it != registry().end()) return it->second;
  std::string known;
  for (const auto& k : registered_workloads()) known += (known.empty() ? "" : ", ") + k;
  throw std::invalid_argument("no workload of kind '" + kind + "' in this build (built: " + known +
                              ")");
}

}  // namespace

bool register_workload(const std::string& kind, WorkloadFactory factory, ConfigDescriber describe) {
  if (!registry().emplace(kind, Registered{std::move(factory), std::move(describe)}).second)
    throw std::logic_error("workload kind '" + kind + "' registered twice");
  return true;
}

const WorkloadFactory& workload_factory(const std::string& kind) {
  return registered(kind).factory;
}

const ConfigDescriber& config_describer(const std::string& kind) {
  return registered(kind).describe;
}

std::vector<std::string> registered_workloads() {
  std::vector<std::string> kinds;
  for (const auto& [k, f] : registry()) kinds.push_back(k);
  return kinds;
}

}  // namespace scaletune::core
