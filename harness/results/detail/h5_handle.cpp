#include "harness/results/detail/h5_handle.hpp"

#include "harness/results/detail/call_trace.hpp"

namespace scaletune::results::detail {
namespace {

/// The close function of each H5Kind, in the enum's order, and its name for the call trace.
struct Closer {
  const char* name;
  herr_t (*close)(hid_t);
};
constexpr Closer kClosers[] = {
    {"H5Fclose", H5Fclose}, {"H5Gclose", H5Gclose}, {"H5Dclose", H5Dclose}, {"H5Sclose", H5Sclose},
    {"H5Tclose", H5Tclose}, {"H5Aclose", H5Aclose}, {"H5Pclose", H5Pclose}};
static_assert(std::size(kClosers) == static_cast<std::size_t>(H5Kind::property_list) + 1);

}  // namespace

void close_quietly(H5Kind kind, hid_t id) noexcept {
  const Closer& closer = kClosers[static_cast<std::size_t>(kind)];
  trace_close_begin(closer.name);
  closer.close(id);
  trace_call_end();
}

}  // namespace scaletune::results::detail
