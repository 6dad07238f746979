#include "harness/mpi/timeline_gather.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>

#include "harness/mpi/mpi_error.hpp"

namespace scaletune::mpi {
namespace {

/// A double as the shortest text that reads back to it.
std::string exact(double value) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  return {buffer, end};
}

double read_double(const std::string& word) {
  double value = 0.0;
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (error != std::errc() || end != word.data() + word.size())
    throw std::logic_error("timeline gather: bad number '" + word + "'");
  return value;
}

/// One line per span of `iteration` (every iteration when `all`): iteration, kind, bytes,
/// begin, end, phase, name, separated by tabs (phase and op names hold none).
std::string pack(const std::vector<trace::TimelineSpan>& spans, bool all, int iteration) {
  std::string text;
  for (const trace::TimelineSpan& s : spans) {
    if (!all && s.iteration != iteration) continue;
    text += std::to_string(s.iteration) + '\t' + std::string(trace::span_kind_text(s.kind)) + '\t' +
            std::to_string(s.bytes) + '\t' + exact(s.begin_s) + '\t' + exact(s.end_s) + '\t' +
            s.phase + '\t' + s.name + '\n';
  }
  return text;
}

void unpack(const std::string& text, int rank, std::vector<trace::TimelineSpan>& out) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string iteration, kind, bytes, begin, end;
    trace::TimelineSpan s;
    s.rank = rank;
    std::getline(fields, iteration, '\t');
    std::getline(fields, kind, '\t');
    std::getline(fields, bytes, '\t');
    std::getline(fields, begin, '\t');
    std::getline(fields, end, '\t');
    std::getline(fields, s.phase, '\t');
    std::getline(fields, s.name, '\t');
    s.iteration = std::stoi(iteration);
    s.kind = trace::parse_span_kind(kind);
    s.bytes = std::stoll(bytes);
    s.begin_s = read_double(begin);
    s.end_s = read_double(end);
    out.push_back(std::move(s));
  }
}

/// Rank 0 of `comm` gets every rank's `text`, in rank order (other ranks: empty).
std::vector<std::string> gather_text(const std::string& text, MPI_Comm comm) {
  int rank = 0, size = 1;
  SCALETUNE_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  SCALETUNE_MPI_CHECK(MPI_Comm_size(comm, &size));
  const int length = static_cast<int>(text.size());
  std::vector<int> lengths(static_cast<std::size_t>(rank == 0 ? size : 0));
  SCALETUNE_MPI_CHECK(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm));
  std::vector<int> offsets(lengths.size(), 0);
  if (!lengths.empty()) std::exclusive_scan(lengths.begin(), lengths.end(), offsets.begin(), 0);
  std::string all(lengths.empty() ? 0 : static_cast<std::size_t>(offsets.back() + lengths.back()),
                  '\0');
  SCALETUNE_MPI_CHECK(MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(),
                                  offsets.data(), MPI_CHAR, 0, comm));
  std::vector<std::string> texts;
  for (std::size_t r = 0; r < lengths.size(); ++r)
    texts.push_back(
        all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
  return texts;
}

}  // namespace

std::size_t median_iteration(const std::vector<double>& step_time) {
  if (step_time.empty()) throw std::invalid_argument("median_iteration: no iterations");
  std::vector<std::size_t> order(step_time.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return step_time[a] < step_time[b]; });
  return order[(order.size() - 1) / 2];
}

void gather_timeline(const std::vector<trace::TimelineSpan>& spans, job::TimelineMode mode,
                     MPI_Comm comm, results::ConfigResult& r) {
  if (mode == job::TimelineMode::none) return;
  int rank = 0;
  SCALETUNE_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  int iteration =
      rank == 0 && !r.step_time.empty() ? static_cast<int>(median_iteration(r.step_time)) : 0;
  SCALETUNE_MPI_CHECK(MPI_Bcast(&iteration, 1, MPI_INT, 0, comm));
  const std::vector<std::string> texts =
      gather_text(pack(spans, mode == job::TimelineMode::all, iteration), comm);
  r.timeline.clear();
  for (std::size_t from = 0; from < texts.size(); ++from)
    unpack(texts[from], static_cast<int>(from), r.timeline);
}

}  // namespace scaletune::mpi
