#include "progress.hpp"

#include <cstdio>

#include "harness/job/batch_split.hpp"

namespace scaletune::mpi {

std::string progress_line(int index, int total, const results::ConfigResult& r, double elapsed_s,
                          double left_s) {
  char buf[512];
  std::string line;
  const bool benchmark = r.workload == "collectives";  // no batch: one pass over ops and sizes
  if (benchmark)
    std::snprintf(buf, sizeof buf, "[%d/%d] %s  ranks %d  %s", index, total, r.id.c_str(), r.ranks,
                  results::to_string(r.status));
  else
    std::snprintf(buf, sizeof buf, "[%d/%d] %s  ranks %d  batch %d (%s)  %s", index, total,
                  r.id.c_str(), r.ranks, r.global_batch,
                  job::per_rank_batch_text(r.per_rank_batch).c_str(), results::to_string(r.status));
  line = buf;
  if (r.status == results::Status::ok && benchmark) {
    std::snprintf(buf, sizeof buf, "  benchmark %.2f s", r.step_time_median);
    line += buf;
  } else if (r.status == results::Status::ok) {
    std::snprintf(buf, sizeof buf, "  %.1f samples/s  step %.1f ms", r.throughput,
                  r.step_time_median * 1e3);
    line += buf;
  } else if (!r.error.empty()) {
    line += " (" + r.error + ")";
  }
  std::snprintf(buf, sizeof buf, "  elapsed %.1f s", elapsed_s);
  line += buf;
  if (left_s >= 0) {
    std::snprintf(buf, sizeof buf, "  left ~%.0f s", left_s);
    line += buf;
  }
  return line;
}

}  // namespace scaletune::mpi
