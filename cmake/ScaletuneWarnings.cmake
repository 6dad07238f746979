# scaletune_warnings: the warning set every scaletune target compiles with.
add_library(scaletune_warnings INTERFACE)
target_compile_options(scaletune_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${SCALETUNE_WERROR}>>:-Werror>
  $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${SCALETUNE_WERROR}>>:-Werror=all-warnings>)
