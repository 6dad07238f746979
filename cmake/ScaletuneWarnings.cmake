# scaletune_warnings: the warning set every scaletune target compiles with.
add_library(scaletune_warnings INTERFACE)
target_compile_options(scaletune_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor>
  # GCC 12 reports -Wrestrict falsely on std::string concatenation at -O2/-O3 (GCC bug 105651).
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-restrict>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${SCALETUNE_WERROR}>>:-Werror>
  $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${SCALETUNE_WERROR}>>:-Werror=all-warnings>)
