#pragma once
// Expanding a job's sweep into configurations (DESIGN.md "Job file": the sweep is the product
// of its lists).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "harness/job/job.hpp"

namespace scaletune::job {

/// Whether batch_split entry `split` (an index into sweep.batch_split) applies to `ranks`:
/// "even" applies to every rank count, a weight list only to the rank count equal to its length.
/// Throws std::out_of_range when sweep.split_weights has no entry `split` (it must be parallel
/// to sweep.batch_split, as parse_job_* makes it).
bool split_applies(const SweepSpec& sweep, std::size_t split, int ranks);

/// Per-rank batch ([ranks], samples) of `global_batch` under batch_split entry `split`:
/// even_split for "even", weighted_split for a weight list, empty for a profiled split
/// ("proportional", "auto": is_profiled_split; the workload splits at run time). Throws
/// std::invalid_argument with their messages ("7 samples cannot split evenly over 2 ranks"; a
/// profiled split: "2 samples cannot give each of 4 ranks at least one"), or when the entry
/// does not apply to `ranks`.
std::vector<int> per_rank_batch(const SweepSpec& sweep, std::size_t split, int global_batch,
                                int ranks);

/// Every configuration of the job, in run order. Kinds that train on a batch (resnet50): the
/// Cartesian product ranks (outermost, so a launch runs small rank counts first) x
/// global_batch x batch_split x precision (innermost), leaving out weight lists whose length
/// differs from ranks; kind "dlrm" adds [sweep] sharding innermost, leaving out explicit plans
/// that name a rank >= ranks; kind "transformer" adds [sweep] state_sharding innermost (in
/// Config::sharding). Kind "collectives": one configuration per ranks value (global_batch
/// 1, batch_split kNoBatchSplit, no per-rank batch, precision = its dtype). Fills id,
/// per_rank_batch, batch_split text and sharding. Throws std::out_of_range for an unknown kind and
/// std::invalid_argument when a batch cannot be split (parse_job_* has ruled both out).
std::vector<Config> expand_sweep(const JobSpec& job);

/// The configuration's id, stable for the same settings and usable as an HDF5 group name (no
/// '/'): "<workload>-r<ranks>-b<global_batch>-<split>-<precision>", where split is "even" or
/// "w" and the weights joined by '_': "resnet50-r4-b256-even-fp32",
/// "resnet50-r3-b96-w0.5_0.25_0.25-fp32". A non-empty sharding (kind dlrm) is appended with
/// ':' replaced by '-': "dlrm-r2-b64-even-fp32-table_wise-size_greedy",
/// "transformer-r3-b24-proportional-fp32-zero2-memory_proportional". A configuration whose
/// batch_split is kNoBatchSplit (a kind that sweeps ranks only) is
/// "<workload>-r<ranks>-<precision>": "collectives-r8-fp32", where the precision is the collectives
/// dtype.
std::string config_id(const Config& config);

/// The text of config.sharding as ids, plans and result attributes write it: sharding_text
/// (dlrm), state_sharding_text (transformer), or "" for a kind without sharding.
std::string config_sharding_text(const Config& config);

/// The name Config::sharding goes by for workload kind `kind`, in plans and as a result
/// attribute: "state_sharding" for kinds that sweep [sweep] state_sharding (transformer),
/// "sharding" for the others. Throws std::out_of_range for an unknown kind.
std::string sharding_key(std::string_view kind);

}  // namespace scaletune::job
