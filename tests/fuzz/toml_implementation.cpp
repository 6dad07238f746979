// The fuzz build's TOML++: compiled here, with the fuzzers' instrumentation, instead of taken
// from Debian's shared library (uninstrumented: the fuzzer would not see the parser's paths).
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
