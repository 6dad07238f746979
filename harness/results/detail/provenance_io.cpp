#include "harness/results/detail/provenance_io.hpp"

#include <array>

#include "harness/results/detail/h5_attribute.hpp"
#include "harness/results/detail/text_members.hpp"

namespace scaletune::results::detail {
namespace {

/// The string attributes of the root group and the Provenance member each one holds.
const std::array<TextMember<Provenance>, 6> kTextAttrs{{
    {"scaletune_version", &Provenance::scaletune_version},
    {"git_sha", &Provenance::git_sha},
    {"created_utc", &Provenance::created_utc},
    {"command_line", &Provenance::command_line},
    {"job_toml", &Provenance::job_toml},
    {"build_type", &Provenance::build_type},
}};

}  // namespace

void write_provenance(hid_t file, const H5Where& root, const Provenance& provenance) {
  if (provenance.schema_version != kSchemaVersion)
    root.fail("cannot write schema_version " + std::to_string(provenance.schema_version) +
              "; this build writes schema_version " + std::to_string(kSchemaVersion));
  write_attribute(file, root, "schema_version", kSchemaVersion);
  write_text_members(file, root, provenance, kTextAttrs, Presence::required);
}

Provenance read_provenance(hid_t file, const H5Where& root) {
  Provenance provenance;
  provenance.schema_version = read_int_attribute(file, root, "schema_version");
  read_text_members(file, root, provenance, kTextAttrs, Presence::required);
  return provenance;
}

}  // namespace scaletune::results::detail
