#pragma once
// Writing and reading scaletune result files (HDF5, schema_version 1; DESIGN.md "Result
// file", every name, type and unit in results/README.md). Serial HDF5 only, no MPI: rank 0
// writes, and autotune/ reads with the same library. Every failure throws ResultError.

#include <memory>
#include <string>
#include <vector>

#include "harness/results/result_error.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::results {

/// An open result file that configurations are written into, one at a time. The writer holds
/// the file in memory; every write ends by replacing the file on disk whole with the new image
/// (written beside it as `<path>.writing`, synced, renamed over it: detail/file_image.hpp), so
/// the file on disk is always complete and readable: a crash, a kill or a full disk loses at
/// most the configuration being written, and a failed write leaves the file as it was before
/// it. Memory: the file's size. Movable, not copyable; a moved-from writer may only be
/// destroyed or assigned to.
class ResultWriter {
 public:
  /// Creates `path` (and its missing parent directories), replacing an existing file, and
  /// writes the root provenance attributes, /system and an empty /configs. system.world_size
  /// 0 means no launch (a file of collective results or imports only): then neither /system
  /// nor /configs is written; write_config creates /configs when first called.
  /// Throws ResultError naming the path when the file cannot be created or the inputs cannot
  /// be stored (system.ranks must hold world_size rows).
  static ResultWriter create(const std::string& path, const Provenance& provenance,
                             const SystemInfo& system);

  /// Reopens `path` to continue a sweep (scaletune run --resume): keeps its /configs,
  /// replaces the root provenance attributes and /system (removed for world_size 0), keeps
  /// /collectives. Creates the file when it does not
  /// exist. Throws ResultError naming the path when it exists but is not HDF5 or has no
  /// schema_version 1.
  static ResultWriter open_for_resume(const std::string& path, const Provenance& provenance,
                                      const SystemInfo& system);

  ResultWriter(ResultWriter&&) noexcept;
  ResultWriter& operator=(ResultWriter&&) noexcept;
  ResultWriter(const ResultWriter&) = delete;
  ResultWriter& operator=(const ResultWriter&) = delete;
  ~ResultWriter();

  /// Writes /configs/<config.id> (replacing a group of the same id), then puts the file on
  /// disk; when that fails (no space, quota, I/O error) throws ResultError naming the file, the
  /// OS error and the configuration, and the file on disk holds what it held before.
  /// The datasets are written only when config.step_time is non-empty, the group
  /// /configs/<id>/embedding only when config.embedding has a value.
  /// Throws ResultError naming /configs/<id> and the field, before anything is written, when
  /// the config cannot be stored as given: per_rank_batch must be empty (not written: a
  /// workload without batches) or hold `ranks` entries summing to global_batch, rank_phase_time
  /// ranks * iterations * phases values, rank_memory_peak `ranks` values, extra attribute
  /// names must differ from the fixed ones, and an embedding must have the configuration's
  /// ranks, lookups and bytes_touched tables * ranks values and reuse_histogram tables * ranks
  /// * reuse_bins (results/README.md).
  void write_config(const ConfigResult& config);

  /// Appends `rows` to the /collectives table (DESIGN.md "Result file"; fields and units in
  /// results/README.md), creating the chunked, extendible 1-D compound dataset when absent,
  /// then puts the file on disk. Rows are stored as given (no bandwidth is recomputed). Throws
  /// ResultError naming /collectives when an existing table lacks a field, has one of another type
  /// class or has contiguous (or compact) storage, which cannot grow (a table another tool wrote
  /// without chunking), or an HDF5 call fails.
  void append_collectives(const std::vector<CollectiveResult>& rows);

  /// Writes the /ops table of an op profile (fields and units in results/README.md), then
  /// puts the file on disk. Throws ResultError naming /ops when the file has one already or
  /// HDF5 fails.
  void write_ops(const std::vector<OpTiming>& rows);

  /// Ids of the stored configurations whose status is ok, in increasing id order: the ones
  /// `scaletune run --resume` skips (an incomplete one, read_results, is not among them).
  std::vector<std::string> ok_config_ids() const;

  /// The path the writer was opened with.
  const std::string& path() const;

 private:
  struct Impl;
  explicit ResultWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

/// Reads the whole result file `path`: provenance, /system (when present), every
/// configuration in increasing id order and the /collectives rows in file order (none when
/// absent). Reading back gives exactly what was written, and
/// every configuration read passes the rules write_config applies. A configuration whose group
/// cannot be opened or lacks an attribute, dataset or group the layout requires (a write
/// interrupted by an older version) is skipped and named in ResultSet::incomplete.
/// The file is read in a child process first (detail/child_probe.hpp): throws DamagedFileError
/// naming the path, the last HDF5 call and object when reading it crashes or hangs there.
/// Throws ResultError naming the path and what was expected when the file is missing, is not
/// HDF5, or has no schema_version 1, and naming /configs/<id> and the attribute or dataset
/// when one has the wrong type or shape or breaks a rule of write_config (ranks < 1,
/// per_rank_batch not `ranks` entries summing to global_batch, ...) or, in the embedding group,
/// naming /configs/<id>/embedding/<dataset> when one is missing, has another shape or another
/// type class (an int64 dataset stored as float64, ...), and naming /collectives
/// when it is not a one-dimensional compound table with every field of CollectiveResult under
/// its DESIGN.md name and type class, and naming /ops when it lacks a field of OpTiming.
ResultSet read_results(const std::string& path);

}  // namespace scaletune::results
