# scaletune_check_headers(TARGET DIR...): every public header (not detail/) under DIR must
# compile on its own (STYLE.md "Layout"). Builds one translation unit per header into an OBJECT
# library TARGET_headers that uses TARGET's include paths and dependencies.
function(scaletune_check_headers target)
  set(_sources)
  foreach(_dir ${ARGN})
    file(GLOB _headers CONFIGURE_DEPENDS ${_dir}/*.hpp)
    foreach(_h ${_headers})
      file(RELATIVE_PATH _rel ${PROJECT_SOURCE_DIR} ${_h})
      string(MAKE_C_IDENTIFIER ${_rel} _id)
      set(_tu ${PROJECT_BINARY_DIR}/header_check/${_id}.cpp)
      file(CONFIGURE OUTPUT ${_tu} CONTENT "#include \"${_rel}\"  // must compile alone\n")
      list(APPEND _sources ${_tu})
    endforeach()
  endforeach()
  add_library(${target}_headers OBJECT ${_sources})
  target_link_libraries(${target}_headers PRIVATE ${target} scaletune_warnings)
endfunction()
