#pragma once
// [workload] options of kind "dlrm" (job.hpp DlrmOptions).

#include <span>
#include <string>
#include <string_view>

#include "harness/job/job.hpp"

namespace scaletune::job::detail {

class TableReader;

/// tables, tables_from, dense_features, bottom_mlp, top_mlp, index_distribution, bag_size,
/// embedding_optimizer, learning_rate, plans.
std::span<const std::string_view> dlrm_option_keys();

/// Fills spec.dlrm: the tables (read_dlrm_tables), dense_features (integer in [1, 65536]),
/// bottom_mlp and top_mlp (non-empty lists of integers in [1, 65536]; bottom_mlp's last equals
/// every table's dim, checked at the table's dim; top_mlp's last is 1), index_distribution
/// ("uniform" or "zipf:ALPHA", ALPHA a finite decimal > 0: index_distribution_from_text), bag_size
/// ("poisson" | "fixed"; "fixed" needs integer poolings, checked at each pooling),
/// embedding_optimizer ("sgd" | "rowwise_adagrad"), learning_rate (number in (0, 1000]) and plans
/// (read_dlrm_plans); absent keys keep their defaults. Throws JobError at the offending node.
void read_dlrm_options(const TableReader& workload, WorkloadSpec& spec);

/// "tables=3 total_rows=1000 dim=64 dense_features=13 bottom_mlp=512,256,64
/// top_mlp=1024,512,1 index_distribution=uniform bag_size=poisson embedding_optimizer=sgd
/// learning_rate=0.01 plans=p1,p2" (plans=- when there are none).
std::string describe_dlrm_options(const WorkloadSpec& spec);

}  // namespace scaletune::job::detail
