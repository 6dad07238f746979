#pragma once
// Text outputs of the command line (autotune --report, export-timeline --out): checked before
// any work, written through a temporary file and a rename so that none is ever half written,
// never over a directory or an HDF5 file.

#include <string>

namespace scaletune::cli {

/// A text file a command writes: the option that names it ("--report") and what it is
/// ("report"), for messages.
struct TextOutput {
  std::string option;
  std::string noun;
  std::string example;  ///< an example path, "results/report.md"
};

/// Throws UsageError naming the option unless `path` names a file that may be written: not
/// empty, not a directory, not an HDF5 file (results are never replaced), in a folder (or below
/// the nearest existing folder) this process can write.
void check_output_path(const TextOutput& output, const std::string& path);

/// Writes `text` to `path` (creating missing folders) through `path`.tmp and a rename. Throws
/// UsageError naming the noun, the path and the OS error when it cannot; then nothing is left.
void write_text_output(const TextOutput& output, const std::string& path, const std::string& text);

}  // namespace scaletune::cli
