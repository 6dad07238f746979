#include "autotune/detail/osu_context.hpp"

#include <array>
#include <utility>

#include "autotune/detail/osu_title.hpp"

namespace scaletune::autotune::detail {

namespace {

/// MPI type names OSU prints (MPI_Type_get_name) and the dtype each is stored as.
constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kDtypes = {{
    {"MPI_CHAR", "byte"},
    {"MPI_INT", "int32"},
    {"MPI_FLOAT", "float"},
}};

}  // namespace

std::optional<std::string> osu_dtype_named_in(const std::vector<std::string_view>& words,
                                              const LogPlace& place) {
  if (words.size() != 3 || words[0] != "#" || words[1] != "Datatype:") return std::nullopt;
  std::string_view name = words[2];
  if (name.ends_with('.')) name.remove_suffix(1);
  for (const auto& [mpi, dtype] : kDtypes)
    if (name == mpi) return std::string(dtype);
  place.fail("OSU datatype '" + std::string(name) +
             "' is not imported: expected MPI_CHAR, MPI_INT or MPI_FLOAT (the types OSU's -T "
             "option takes)");
}

void OsuContext::read(const std::vector<std::string_view>& words, std::string_view line,
                      const LogPlace& place) {
  if (const auto title = osu_title(line)) {
    read_title(*title, place);
  } else if (auto dtype = osu_dtype_named_in(words, place)) {
    m_dtype = std::move(*dtype);
    m_table.other(words);
  } else if (is_osu_header(words)) {
    if (m_test == nullptr)
      place.fail(
          "OSU table header without a title line ('# OSU MPI Bandwidth Test', '# OSU MPI "
          "Allreduce Latency Test', ...) before it: the title tells osu_bw from osu_bibw and "
          "osu_latency from osu_put_latency, which print the same header");
    m_columns = osu_columns_from_header(words, m_test->measure, place);
    m_table.header();
  } else {
    m_table.other(words);
  }
}

void OsuContext::read_title(const OsuTitle& title, const LogPlace& place) {
  m_test = imported_osu_test(title);
  if (m_test == nullptr)
    place.fail("OSU test '" + title.library + " " + title.test + "' is not imported: only " +
               imported_osu_programs() +
               " (and their osu_xccl_* forms) are, by their titles ('# OSU MPI[-CUDA|-ROCM] "
               "Bandwidth Test', '# OSU MPI Allreduce Latency Test', '# OSU NCCL-CUDA "
               "Allreduce Latency Test', ...)");
  m_dtype = std::string(m_test->dtype);
  m_columns.reset();
  m_table.end();
}

}  // namespace scaletune::autotune::detail
