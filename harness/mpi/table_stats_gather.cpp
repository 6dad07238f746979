#include "harness/mpi/table_stats_gather.hpp"

#include "harness/mpi/mpi_error.hpp"

namespace scaletune::mpi {

void gather_table_stats(const std::vector<core::TableRankStats>& stats, MPI_Comm comm,
                        results::ConfigResult& r) {
  if (stats.empty()) return;
  int rank = 0, size = 1;
  SCALETUNE_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  SCALETUNE_MPI_CHECK(MPI_Comm_size(comm, &size));
  constexpr std::size_t kBins = results::EmbeddingStats::reuse_bins;
  const std::size_t tables = stats.size();
  std::vector<std::int64_t> counts;  // [tables, 2]: lookups, bytes touched
  std::vector<double> histograms;    // [tables, bins]
  for (const core::TableRankStats& s : stats) {
    counts.insert(counts.end(), {s.lookups, s.bytes_touched});
    histograms.insert(histograms.end(), s.reuse_histogram.begin(), s.reuse_histogram.end());
  }
  const auto all = static_cast<std::size_t>(rank == 0 ? size : 0);
  std::vector<std::int64_t> all_counts(all * counts.size());
  std::vector<double> all_histograms(all * histograms.size());
  SCALETUNE_MPI_CHECK(MPI_Gather(counts.data(), static_cast<int>(counts.size()), MPI_INT64_T,
                                 all_counts.data(), static_cast<int>(counts.size()), MPI_INT64_T, 0,
                                 comm));
  SCALETUNE_MPI_CHECK(MPI_Gather(histograms.data(), static_cast<int>(histograms.size()), MPI_DOUBLE,
                                 all_histograms.data(), static_cast<int>(histograms.size()),
                                 MPI_DOUBLE, 0, comm));
  if (rank != 0) return;
  results::EmbeddingStats e;
  e.ranks = size;
  for (const core::TableRankStats& s : stats) e.table_names.push_back(s.table);
  for (std::size_t t = 0; t < tables; ++t)
    for (std::size_t p = 0; p < all; ++p) {
      e.lookups.push_back(all_counts[(p * tables + t) * 2]);
      e.bytes_touched.push_back(all_counts[(p * tables + t) * 2 + 1]);
      const auto* h = &all_histograms[(p * tables + t) * kBins];
      e.reuse_histogram.insert(e.reuse_histogram.end(), h, h + kBins);
    }
  r.embedding = std::move(e);
}

}  // namespace scaletune::mpi
