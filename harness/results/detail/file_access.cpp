#include "harness/results/detail/file_access.hpp"

#include <filesystem>
#include <system_error>

#include "harness/results/detail/h5_attribute.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::results::detail {
namespace {

std::string expected(std::string_view kind) {
  return "expected a " + std::string(kind) + " (HDF5 with schema_version " +
         std::to_string(kSchemaVersion) + ")";
}

void check_schema_version(const File& file, const H5Where& root, std::string_view kind) {
  if (!has_attribute(file.id(), root, "schema_version"))
    root.fail("no attribute schema_version; " + expected(kind));
  const int version = read_int_attribute(file.id(), root, "schema_version");
  if (version != kSchemaVersion)
    root.fail("schema_version is " + std::to_string(version) + "; " + expected(kind));
}

/// File access properties: no file lock (see file_access.hpp); in memory (the core driver,
/// growing by 1 MiB, without a backing store) or through the default driver.
PropertyList access(const H5Where& where, bool in_memory) {
  PropertyList fapl{SCALETUNE_H5(where, H5Pcreate(H5P_FILE_ACCESS))};
  SCALETUNE_H5(where, H5Pset_file_locking(fapl.id(), false, true));
  if (in_memory) SCALETUNE_H5(where, H5Pset_fapl_core(fapl.id(), std::size_t{1} << 20, false));
  return fapl;
}

File checked_open(const std::string& path, unsigned flags, std::string_view kind, bool in_memory) {
  const H5Where whole{path, ""};
  std::error_code error;
  if (!std::filesystem::exists(path, error)) whole.fail("no such file; " + expected(kind));
  if (!std::filesystem::is_regular_file(path, error)) whole.fail("not a file; " + expected(kind));
  if (SCALETUNE_H5(whole, H5Fis_hdf5(path.c_str())) == 0)
    whole.fail("not an HDF5 file; " + expected(kind));
  const PropertyList fapl = access(whole, in_memory);
  File file{SCALETUNE_H5(whole, H5Fopen(path.c_str(), flags, fapl.id()))};
  check_schema_version(file, H5Where{path, "/"}, kind);
  return file;
}

}  // namespace

File create_memory_file(const std::string& path) {
  const H5Where whole{path, ""};
  const PropertyList fapl = access(whole, true);
  return File{SCALETUNE_H5(whole, H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.id()))};
}

File open_result_file(const std::string& path, unsigned flags, std::string_view kind) {
  return checked_open(path, flags, kind, false);
}

File open_in_memory(const std::string& path, std::string_view kind) {
  return checked_open(path, H5F_ACC_RDWR, kind, true);
}

}  // namespace scaletune::results::detail
