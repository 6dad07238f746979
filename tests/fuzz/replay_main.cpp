// A fuzz target's replay driver for the ordinary build (no libFuzzer): runs
// LLVMFuzzerTestOneInput once on every file given and on every file of every folder given
// (seeds and the regression inputs of tests/fuzz/corpus/), so ctest replays each input a fuzzer
// once crashed on. A finding aborts, as under libFuzzer; an unreadable path fails.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

/// The files to replay for `path`: itself when it is a file, else its regular files, sorted.
std::vector<fs::path> inputs_of(const fs::path& path) {
  if (!fs::is_directory(path)) return {path};
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(path))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::ranges::sort(files);
  return files;
}

/// Runs the target on the bytes of `file`; false when it cannot be read.
bool replay(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  const std::vector<char> bytes{std::istreambuf_iterator<char>(in),
                                std::istreambuf_iterator<char>()};
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return !in.bad();
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    if (!fs::exists(argv[i])) {
      std::cerr << "replay: " << argv[i] << ": no such file or folder\n";
      return 1;
    }
    for (const fs::path& file : inputs_of(argv[i])) {
      if (!replay(file)) {
        std::cerr << "replay: " << file.string() << ": cannot read\n";
        return 1;
      }
      ++replayed;
    }
  }
  std::cout << "replay: " << replayed << " inputs, no finding\n";
  return replayed > 0 ? 0 : 1;
}
