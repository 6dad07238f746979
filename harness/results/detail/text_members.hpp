#pragma once
// String attributes that map one-to-one onto std::string members of a result type (Provenance,
// SystemInfo, LaunchRecord, ConfigResult): one table of names and members, written and read in
// one loop each.

#include <array>
#include <cstddef>
#include <string>
#include <utility>

#include "harness/results/detail/h5_attribute.hpp"

namespace scaletune::results::detail {

/// An attribute name and the member of T that holds its value.
template <class T>
using TextMember = std::pair<const char*, std::string T::*>;

/// Whether an attribute is always there or only when its value is non-empty.
enum class Presence { required, when_set };

/// Writes each member of `object` as a string attribute of `obj`; with Presence::when_set an
/// empty one is left out.
template <class T, std::size_t N>
void write_text_members(hid_t obj, const H5Where& where, const T& object,
                        const std::array<TextMember<T>, N>& members, Presence presence) {
  for (const auto& [name, member] : members)
    if (presence == Presence::required || !(object.*member).empty())
      write_attribute(obj, where, name, object.*member);
}

/// Reads each member of `object` from a string attribute of `obj`. Throws ResultError naming a
/// missing attribute with Presence::required; with Presence::when_set a missing one leaves the
/// member as it is.
template <class T, std::size_t N>
void read_text_members(hid_t obj, const H5Where& where, T& object,
                       const std::array<TextMember<T>, N>& members, Presence presence) {
  for (const auto& [name, member] : members)
    if (presence == Presence::required || has_attribute(obj, where, name))
      object.*member = read_string_attribute(obj, where, name);
}

}  // namespace scaletune::results::detail
