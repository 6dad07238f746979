# scaletune_fuzz_target(NAME SOURCE file LIBS library... SEEDS file-or-folder...): one fuzz target
# of tests/fuzz. The fuzz build (SCALETUNE_FUZZ, clang) makes the libFuzzer executable fuzz_NAME
# and lists it in fuzz-targets.txt (a line: name, executable, regression folder, seeds) for
# scripts/run-fuzz.sh; the ordinary build makes replay_NAME, which ctest runs (label fuzz) on
# the seeds and on the regression inputs in tests/fuzz/corpus/NAME/.
function(scaletune_fuzz_target name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "SOURCE" "LIBS;SEEDS")
  set(_corpus ${CMAKE_CURRENT_SOURCE_DIR}/corpus/${name})
  if(SCALETUNE_FUZZ)
    add_executable(fuzz_${name} ${arg_SOURCE})
    target_link_libraries(fuzz_${name} PRIVATE ${arg_LIBS} scaletune_warnings)
    target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
    list(JOIN arg_SEEDS " " _seeds)
    file(APPEND ${CMAKE_BINARY_DIR}/fuzz-targets.txt
         "${name} ${CMAKE_CURRENT_BINARY_DIR}/fuzz_${name} ${_corpus} ${_seeds}\n")
  else()
    add_executable(replay_${name} ${arg_SOURCE} ${CMAKE_CURRENT_SOURCE_DIR}/replay_main.cpp)
    target_link_libraries(replay_${name} PRIVATE ${arg_LIBS} scaletune_warnings)
    add_test(NAME fuzz_replay_${name} COMMAND replay_${name} ${arg_SEEDS} ${_corpus})
    set_tests_properties(fuzz_replay_${name} PROPERTIES LABELS fuzz)
  endif()
endfunction()
