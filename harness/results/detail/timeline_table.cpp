#include "harness/results/detail/timeline_table.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "harness/results/detail/compound_check.hpp"
#include "harness/results/detail/h5_dataset.hpp"
#include "harness/results/detail/h5_group.hpp"
#include "harness/results/detail/h5_types.hpp"

namespace scaletune::results::detail {
namespace {

/// One row in memory. Strings are variable-length: HDF5 allocates them when reading.
struct SpanRow {
  int rank;
  int iteration;
  char* kind;
  char* phase;
  char* name;
  double begin_s;
  double end_s;
  std::int64_t bytes;
};

/// Compound memory type of SpanRow; HDF5 stores it as is and matches fields by name on read.
Datatype span_row_type(const H5Where& at) {
  const Datatype text = vlen_string_type(at);
  Datatype row{SCALETUNE_H5(at, H5Tcreate(H5T_COMPOUND, sizeof(SpanRow)))};
  const hid_t id = row.id();
  const auto insert = [&](const char* field, std::size_t offset, hid_t type) {
    SCALETUNE_H5(at, H5Tinsert(id, field, offset, type));
  };
  insert("rank", offsetof(SpanRow, rank), native_type<int>());
  insert("iteration", offsetof(SpanRow, iteration), native_type<int>());
  insert("kind", offsetof(SpanRow, kind), text.id());
  insert("phase", offsetof(SpanRow, phase), text.id());
  insert("name", offsetof(SpanRow, name), text.id());
  insert("begin_s", offsetof(SpanRow, begin_s), native_type<double>());
  insert("end_s", offsetof(SpanRow, end_s), native_type<double>());
  insert("bytes", offsetof(SpanRow, bytes), native_type<std::int64_t>());
  return row;
}

/// The span of a row, taking its strings (so every row's strings are freed even when one is
/// bad); `problem` gets what is wrong with the first bad row.
trace::TimelineSpan from_row(SpanRow& r, std::string& problem) {
  trace::TimelineSpan span;
  span.rank = r.rank;
  span.iteration = r.iteration;
  const std::string kind = take_string(r.kind);
  span.phase = take_string(r.phase);
  span.name = take_string(r.name);
  span.begin_s = r.begin_s;
  span.end_s = r.end_s;
  span.bytes = r.bytes;
  if (!problem.empty()) return span;
  try {
    span.kind = trace::parse_span_kind(kind);
  } catch (const std::invalid_argument& e) {
    problem = e.what();
  }
  if (!(span.end_s >= span.begin_s))
    problem = "a span of rank " + std::to_string(span.rank) + " ends before it begins";
  return span;
}

}  // namespace

void write_timeline(hid_t group, const H5Where& at, const std::string& name,
                    const std::vector<trace::TimelineSpan>& spans) {
  std::vector<std::string> kinds;
  kinds.reserve(spans.size());
  for (const trace::TimelineSpan& s : spans) kinds.emplace_back(trace::span_kind_text(s.kind));
  std::vector<SpanRow> raw;
  raw.reserve(spans.size());
  // HDF5 only reads the strings while writing: the casts never lead to a write through them.
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const trace::TimelineSpan& s = spans[i];
    raw.push_back({s.rank, s.iteration, const_cast<char*>(kinds[i].c_str()),
                   const_cast<char*>(s.phase.c_str()), const_cast<char*>(s.name.c_str()), s.begin_s,
                   s.end_s, s.bytes});
  }
  const H5Where where = at.child(name);
  const Datatype type = span_row_type(where);
  write_dataset_raw(group, at, name, type.id(), {{spans.size()}, "spans", "s"}, raw.data());
}

std::vector<trace::TimelineSpan> read_timeline(hid_t group, const H5Where& at,
                                               const std::string& name) {
  if (!has_link(group, at, name)) return {};
  const H5Where where = at.child(name);
  const Dataset dataset = open_dataset(group, at, name);
  const std::vector<hsize_t> dims = dataset_dims(dataset, where);
  if (dims.size() != 1) where.fail("expected a one-dimensional table [spans]");
  const Datatype type = span_row_type(where);
  check_compound_fields(dataset, type.id(), where);
  std::vector<SpanRow> raw(dataset_points(dataset, where),
                           SpanRow{0, 0, nullptr, nullptr, nullptr, 0, 0, 0});
  if (!raw.empty())
    SCALETUNE_H5(where,
                 H5Dread(dataset.id(), type.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()));
  std::vector<trace::TimelineSpan> spans;
  spans.reserve(raw.size());
  std::string problem;
  for (SpanRow& r : raw) spans.push_back(from_row(r, problem));
  if (!problem.empty()) where.fail(problem);
  return spans;
}

}  // namespace scaletune::results::detail
