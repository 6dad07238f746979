#include "harness/cli/provenance.hpp"

#include <string>

#include "harness/cli/build_info.hpp"

namespace scaletune::cli {

results::Provenance command_provenance(int argc, char** argv) {
  results::Provenance p;
  p.scaletune_version = scaletune_version();
  p.git_sha = git_sha();
  p.build_type = build_type();
  for (int i = 0; i < argc; ++i) p.command_line += (i ? " " : "") + std::string(argv[i]);
  return p;
}

}  // namespace scaletune::cli
