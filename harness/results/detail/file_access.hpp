#pragma once
// Creating and opening result files, with the checks that tell a scaletune result file
// (HDF5, root attribute schema_version 1) from anything else.
//
// Every open goes without HDF5's file lock (H5Pset_file_locking, HDF5 >= 1.10.7), in the
// writer and the reader alike (HDF5 refuses to open one file twice in a process with
// different lock settings): the file of a running sweep can then be read by `scaletune
// inspect`, h5py or the writer's own process; it is always complete (file_image.hpp). The price:
// nothing stops two sweeps from writing one file.

#include <string>
#include <string_view>

#include "harness/results/detail/h5_handle.hpp"

namespace scaletune::results::detail {

/// Creates an empty HDF5 file in memory labelled `path` (HDF5's core driver without a backing
/// store: nothing is created on disk; file_image.hpp puts it there). Throws ResultError naming
/// the path when HDF5 fails.
File create_memory_file(const std::string& path);

/// Opens the existing result file `path` with `flags` (H5F_ACC_RDONLY or H5F_ACC_RDWR). Throws
/// ResultError naming the path and what was expected ("expected a `kind` (HDF5 with
/// schema_version N)") when the file is missing, is not HDF5, or has no root attribute
/// schema_version equal to kSchemaVersion.
File open_result_file(const std::string& path, unsigned flags,
                      std::string_view kind = "scaletune result file");

/// Reads the existing result file `path` into memory, writable there only (the core driver
/// without a backing store; file_image.hpp writes it back). The checks and errors of
/// open_result_file.
File open_in_memory(const std::string& path, std::string_view kind = "scaletune result file");

}  // namespace scaletune::results::detail
