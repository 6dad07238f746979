#include "harness/results/result_file.hpp"

#include <filesystem>

#include "harness/results/detail/config_check.hpp"
#include "harness/results/detail/config_io.hpp"
#include "harness/results/detail/file_access.hpp"
#include "harness/results/detail/h5_group.hpp"
#include "harness/results/detail/provenance_io.hpp"
#include "harness/results/detail/system_io.hpp"

namespace scaletune::results {

using detail::H5Where;

/// The open file and its /configs group.
struct ResultWriter::Impl {
  /// Writes provenance and /system into the open `file`, opens or creates /configs, flushes.
  Impl(const std::string& path, detail::File file, const Provenance& provenance,
       const SystemInfo& system)
      : m_path(path), m_file(std::move(file)) {
    detail::write_provenance(m_file.id(), root(), provenance);
    detail::write_system(m_file.id(), root(), system);
    m_configs = detail::open_or_create_group(m_file.id(), root(), detail::kConfigsGroup);
    flush();
  }

  H5Where root() const { return {m_path, "/"}; }
  H5Where configs_where() const { return root().child(detail::kConfigsGroup); }
  void flush() const { SCALETUNE_H5(root(), H5Fflush(m_file.id(), H5F_SCOPE_GLOBAL)); }

  std::string m_path;
  detail::File m_file;
  detail::Group m_configs;
};

ResultWriter::ResultWriter(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
ResultWriter::ResultWriter(ResultWriter&&) noexcept = default;
ResultWriter& ResultWriter::operator=(ResultWriter&&) noexcept = default;
ResultWriter::~ResultWriter() = default;

ResultWriter ResultWriter::create(const std::string& path, const Provenance& provenance,
                                  const SystemInfo& system) {
  return ResultWriter(
      std::make_unique<Impl>(path, detail::create_result_file(path), provenance, system));
}

ResultWriter ResultWriter::open_for_resume(const std::string& path, const Provenance& provenance,
                                           const SystemInfo& system) {
  if (!std::filesystem::exists(path)) return create(path, provenance, system);
  return ResultWriter(std::make_unique<Impl>(path, detail::open_result_file(path, H5F_ACC_RDWR),
                                             provenance, system));
}

void ResultWriter::write_config(const ConfigResult& config) {
  const H5Where where = m_impl->configs_where();
  detail::check_storable(config, where);
  detail::write_config_group(m_impl->m_configs.id(), where, config);
  m_impl->flush();
}

std::vector<std::string> ResultWriter::ok_config_ids() const {
  const H5Where where = m_impl->configs_where();
  const hid_t configs = m_impl->m_configs.id();
  std::vector<std::string> ids;
  for (const std::string& id : detail::link_names(configs, where)) {
    const detail::Group group = detail::open_group(configs, where, id);
    if (detail::read_config_status(group.id(), where.child(id)) == Status::ok) ids.push_back(id);
  }
  return ids;
}

const std::string& ResultWriter::path() const {
  return m_impl->m_path;
}

}  // namespace scaletune::results
