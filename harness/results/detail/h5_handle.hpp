#pragma once
// RAII ownership of HDF5 identifiers (hid_t): one handle type per kind of object, each
// closed with its own H5?close call when the handle goes out of scope.

#include <hdf5.h>

#include <iterator>
#include <utility>

namespace scaletune::results::detail {

/// What an hid_t names; picks the call that releases it.
enum class H5Kind { file, group, dataset, dataspace, datatype, attribute, property_list };

/// Releases `id` with H5Fclose, H5Gclose, H5Dclose, H5Sclose, H5Tclose, H5Aclose or
/// H5Pclose. A failure is ignored: this runs in destructors, and cleanup never throws.
/// (Nothing is lost by it: writers put their files on disk with checked calls after every
/// write, file_image.hpp.)
void close_quietly(H5Kind kind, hid_t id) noexcept;

/// Owns one identifier of kind K (or none) and closes it on destruction. Move-only.
template <H5Kind K>
class H5Handle {
 public:
  H5Handle() = default;
  /// Takes ownership of `id`, a valid identifier of kind K (from SCALETUNE_H5).
  explicit H5Handle(hid_t id) : m_id(id) {}
  H5Handle(H5Handle&& other) noexcept : m_id(std::exchange(other.m_id, H5I_INVALID_HID)) {}
  H5Handle& operator=(H5Handle&& other) noexcept {
    if (this != &other) {
      release();
      m_id = std::exchange(other.m_id, H5I_INVALID_HID);
    }
    return *this;
  }
  H5Handle(const H5Handle&) = delete;
  H5Handle& operator=(const H5Handle&) = delete;
  ~H5Handle() { release(); }

  /// The identifier, for HDF5 calls; H5I_INVALID_HID when empty.
  hid_t id() const { return m_id; }

 private:
  void release() noexcept {
    if (m_id >= 0) close_quietly(K, m_id);
    m_id = H5I_INVALID_HID;
  }

  hid_t m_id = H5I_INVALID_HID;
};

using File = H5Handle<H5Kind::file>;
using Group = H5Handle<H5Kind::group>;
using Dataset = H5Handle<H5Kind::dataset>;
using Dataspace = H5Handle<H5Kind::dataspace>;
using Datatype = H5Handle<H5Kind::datatype>;
using Attribute = H5Handle<H5Kind::attribute>;
using PropertyList = H5Handle<H5Kind::property_list>;

}  // namespace scaletune::results::detail
