#include "harness/results/detail/h5_handle.hpp"

namespace scaletune::results::detail {

void close_quietly(H5Kind kind, hid_t id) noexcept {
  switch (kind) {
    case H5Kind::file:
      H5Fclose(id);
      return;
    case H5Kind::group:
      H5Gclose(id);
      return;
    case H5Kind::dataset:
      H5Dclose(id);
      return;
    case H5Kind::dataspace:
      H5Sclose(id);
      return;
    case H5Kind::datatype:
      H5Tclose(id);
      return;
    case H5Kind::attribute:
      H5Aclose(id);
      return;
    case H5Kind::property_list:
      H5Pclose(id);
      return;
  }
}

}  // namespace scaletune::results::detail
