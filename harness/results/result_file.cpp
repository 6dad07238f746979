#include "harness/results/result_file.hpp"

#include <filesystem>

#include "harness/results/detail/collective_table.hpp"
#include "harness/results/detail/config_check.hpp"
#include "harness/results/detail/config_io.hpp"
#include "harness/results/detail/file_access.hpp"
#include "harness/results/detail/file_image.hpp"
#include "harness/results/detail/h5_group.hpp"
#include "harness/results/detail/op_table.hpp"
#include "harness/results/detail/provenance_io.hpp"
#include "harness/results/detail/system_io.hpp"

namespace scaletune::results {

using detail::H5Where;

/// The file, held in memory, and its /configs group (opened when first needed).
struct ResultWriter::Impl {
  /// Writes provenance and /system into the open `file`; for a launch (world_size > 0)
  /// opens or creates /configs. Flushes.
  Impl(const std::string& path, detail::File file, const Provenance& provenance,
       const SystemInfo& system)
      : m_path(path), m_file(std::move(file)) {
    detail::write_provenance(m_file.id(), root(), provenance);
    detail::write_system(m_file.id(), root(), system);
    if (system.world_size > 0) configs();
    flush();
  }

  /// /configs, opened or created on first use.
  hid_t configs() {
    if (m_configs.id() < 0)
      m_configs = detail::open_or_create_group(m_file.id(), root(), detail::kConfigsGroup);
    return m_configs.id();
  }
  /// Whether the file has /configs (without creating it).
  bool has_configs() const {
    return m_configs.id() >= 0 || detail::has_link(m_file.id(), root(), detail::kConfigsGroup);
  }

  H5Where root() const { return {m_path, "/"}; }
  H5Where configs_where() const { return root().child(detail::kConfigsGroup); }
  /// Puts the in-memory file on disk, replacing the file there whole (file_image.hpp).
  void flush() const { detail::replace_with_image(m_file.id(), m_path); }

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
      std::make_unique<Impl>(path, detail::create_memory_file(path), provenance, system));
}

ResultWriter ResultWriter::open_for_resume(const std::string& path, const Provenance& provenance,
                                           const SystemInfo& system) {
  if (!std::filesystem::exists(path)) return create(path, provenance, system);
  return ResultWriter(
      std::make_unique<Impl>(path, detail::open_in_memory(path), provenance, system));
}

void ResultWriter::write_config(const ConfigResult& config) {
  const H5Where where = m_impl->configs_where();
  detail::check_storable(config, where);
  detail::write_config_group(m_impl->configs(), where, config);
  try {
    m_impl->flush();
  } catch (const WriteError& e) {
    throw WriteError(std::string(e.what()) + "; configuration " + config.id +
                         " is not in it, the ones written before are",
                     e.os_error());
  }
}

void ResultWriter::append_collectives(const std::vector<CollectiveResult>& rows) {
  detail::append_collective_rows(m_impl->m_file.id(), m_impl->root(), rows);
  m_impl->flush();
}

void ResultWriter::write_ops(const std::vector<OpTiming>& rows) {
  detail::write_op_rows(m_impl->m_file.id(), m_impl->root(), rows);
  m_impl->flush();
}

std::vector<std::string> ResultWriter::ok_config_ids() const {
  const H5Where where = m_impl->configs_where();
  std::vector<std::string> ids;
  if (!m_impl->has_configs()) return ids;
  const hid_t configs = m_impl->configs();
  for (const std::string& id : detail::link_names(configs, where)) {
    try {
      if (detail::read_config_group(configs, where, id).status == Status::ok) ids.push_back(id);
    } catch (const MissingPartError&) {  // incomplete: run again
    }
  }
  return ids;
}

const std::string& ResultWriter::path() const {
  return m_impl->m_path;
}

}  // namespace scaletune::results
