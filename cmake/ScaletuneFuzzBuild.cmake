# The fuzz build (-DSCALETUNE_FUZZ=ON, clang and libFuzzer): only the libraries the targets of
# tests/fuzz use, all instrumented for libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer.
# No CUDA, kernels, MPI code, tests or header checks.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "SCALETUNE_FUZZ needs clang and libFuzzer: configure with "
                      "-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++")
endif()

add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                    -fno-omit-frame-pointer)
add_link_options(-fsanitize=address,undefined)

# TOML++ compiled here with the instrumentation (Debian's shared library has none, so the fuzzer
# would not see the parser's paths); the config file keeps a target of this name.
add_library(scaletune_toml STATIC ${PROJECT_SOURCE_DIR}/tests/fuzz/toml_implementation.cpp)
target_compile_definitions(scaletune_toml PUBLIC TOML_HEADER_ONLY=0)
target_compile_features(scaletune_toml PUBLIC cxx_std_17)
add_library(tomlplusplus::tomlplusplus ALIAS scaletune_toml)
# TOML++ 3.3.0 reaches __builtin_unreachable() when it asks whether a non-ASCII character it met
# outside a string is whitespace (code points U+00A1..U+0499 and U+FB3E..U+FEFE; upstream issues
# marzer/tomlplusplus#190 and #295). Debian's build of the library answers with a parse error
# for every such character (checked for all of U+00A0..U+FEFF before keys, after values and after
# '='), so the check is left out for this library, not for scaletune's code.
set_source_files_properties(${PROJECT_SOURCE_DIR}/tests/fuzz/toml_implementation.cpp PROPERTIES
                            COMPILE_OPTIONS -fno-sanitize=unreachable)

include(ScaletuneDependencies)
include(ScaletuneWarnings)

file(WRITE ${CMAKE_BINARY_DIR}/fuzz-targets.txt "")
add_subdirectory(harness/job)
add_subdirectory(harness/trace)
add_subdirectory(harness/results)
add_subdirectory(tests/fuzz)
