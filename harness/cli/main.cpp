// scaletune: benchmark distributed training and tune it. See README.md and DESIGN.md.
#include "harness/cli/commands.hpp"

int main(int argc, char** argv) {
  return scaletune::cli::main(argc, argv);
}
