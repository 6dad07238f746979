#include "harness/results/detail/collective_table.hpp"
#include "harness/results/detail/config_io.hpp"
#include "harness/results/detail/damage_guard.hpp"
#include "harness/results/detail/file_access.hpp"
#include "harness/results/detail/h5_group.hpp"
#include "harness/results/detail/op_table.hpp"
#include "harness/results/detail/provenance_io.hpp"
#include "harness/results/detail/system_io.hpp"
#include "harness/results/result_file.hpp"

namespace scaletune::results {

namespace {

ResultSet read_whole(const std::string& path) {
  const detail::File file = detail::open_result_file(path, H5F_ACC_RDONLY);
  const detail::H5Where root{path, "/"};
  ResultSet results{
      path, detail::read_provenance(file.id(), root),      detail::read_system(file.id(), root),
      {},   detail::read_collective_rows(file.id(), root), detail::read_op_rows(file.id(), root),
      {}};
  if (!detail::has_link(file.id(), root, detail::kConfigsGroup)) return results;
  const detail::Group configs = detail::open_group(file.id(), root, detail::kConfigsGroup);
  const detail::H5Where where = root.child(detail::kConfigsGroup);
  for (const std::string& id : detail::link_names(configs.id(), where)) {
    try {
      results.configs.push_back(detail::read_config_group(configs.id(), where, id));
    } catch (const MissingPartError& e) {
      results.incomplete.push_back({id, e.what()});
    }
  }
  return results;
}

}  // namespace

ResultSet read_results(const std::string& path) {
  return detail::read_guarded(path, [&] { return read_whole(path); });
}

}  // namespace scaletune::results
