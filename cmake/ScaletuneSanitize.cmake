# SCALETUNE_SANITIZE: every C and C++ target (libraries, tests, the executable) compiles and
# links with AddressSanitizer and UndefinedBehaviorSanitizer; any UB report stops the program.
if(SCALETUNE_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "SCALETUNE_SANITIZE needs GCC or Clang")
  endif()
  if(SCALETUNE_HAVE_CUDA)
    message(FATAL_ERROR "SCALETUNE_SANITIZE needs -DSCALETUNE_ENABLE_CUDA=OFF")
  endif()
  set(_san -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${_san}>")
  add_link_options(-fsanitize=address,undefined)
  message(STATUS "scaletune: AddressSanitizer and UndefinedBehaviorSanitizer ON")
endif()
