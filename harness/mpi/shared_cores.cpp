#include "harness/mpi/shared_cores.hpp"

#include <sched.h>

#include <cstdlib>
#include <map>
#include <utility>

#include "harness/mpi/host_names.hpp"
#include "harness/mpi/mpi_error.hpp"

namespace scaletune::mpi {

namespace {

/// "host core" of a binding, as gathered_text carries it.
std::string encoded(const RankBinding& b) {
  return b.host + " " + std::to_string(b.core);
}

RankBinding decoded(const std::string& text) {
  const std::size_t space = text.rfind(' ');
  return {text.substr(0, space), std::atoi(text.c_str() + space + 1)};
}

/// "ranks 0 and 1 share core 0 of node1" for every group.
std::string described(const std::vector<std::vector<int>>& groups,
                      const std::vector<RankBinding>& bindings) {
  std::string text;
  for (const std::vector<int>& group : groups) {
    std::string ranks;
    for (std::size_t i = 0; i < group.size(); ++i)
      ranks += (i == 0 ? "" : i + 1 == group.size() ? " and " : ", ") + std::to_string(group[i]);
    const RankBinding& where = bindings[static_cast<std::size_t>(group.front())];
    text += (text.empty() ? "" : "; ") + std::string("ranks ") + ranks + " share core " +
            std::to_string(where.core) + " of " + where.host;
  }
  return text;
}

}  // namespace

RankBinding own_binding() {
  RankBinding b{processor_name(), -1};
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) != 1) return b;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) b.core = cpu;
  return b;
}

std::vector<std::vector<int>> ranks_sharing_a_core(const std::vector<RankBinding>& bindings) {
  std::map<std::pair<std::string, int>, std::vector<int>> by_core;
  std::vector<std::pair<std::string, int>> order;  // cores in order of their first rank
  for (std::size_t r = 0; r < bindings.size(); ++r) {
    if (bindings[r].core < 0) continue;
    const std::pair<std::string, int> key{bindings[r].host, bindings[r].core};
    if (by_core[key].empty()) order.push_back(key);
    by_core[key].push_back(static_cast<int>(r));
  }
  std::vector<std::vector<int>> groups;
  for (const auto& key : order)
    if (by_core[key].size() > 1) groups.push_back(by_core[key]);
  return groups;
}

bool yields_when_idle() {
  const char* value = std::getenv("OMPI_MCA_mpi_yield_when_idle");
  return value != nullptr && (std::string(value) == "1" || std::string(value) == "true");
}

std::string shared_core_warning(MPI_Comm comm) {
  std::vector<RankBinding> bindings;
  for (const std::string& text :
       gathered_text(comm, encoded(own_binding()), MPI_MAX_PROCESSOR_NAME + 16))
    bindings.push_back(decoded(text));
  int rank = 0;
  SCALETUNE_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  const std::vector<std::vector<int>> groups = ranks_sharing_a_core(bindings);
  if (rank != 0 || groups.empty() || yields_when_idle()) return "";
  return described(groups, bindings) +
         ": a rank waiting in a collective polls without yielding and takes the core from the "
         "rank that computes (Open MPI does not know the core is oversubscribed); launch with "
         "mpirun --mca mpi_yield_when_idle 1";
}

}  // namespace scaletune::mpi
