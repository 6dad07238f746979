#include "harness/cli/commands.hpp"

#include <iostream>
#include <string>

#include "harness/cli/build_info.hpp"

namespace scaletune::cli {

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "--version") {
    std::cout << "scaletune " << scaletune_version() << " (" << git_sha() << ")\n";
    return kOk;
  }
  std::cerr << "scaletune: usage: scaletune run|plan|inspect|autotune ... (see --help)\n";
  return kBadInput;
}

}  // namespace scaletune::cli
