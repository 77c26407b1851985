# The `doc` target: Doxygen over the C API headers (docs/Doxyfile.in), HTML
# into <build>/doc/html. Any Doxygen warning, an undocumented function or
# parameter included, fails it; the ctest doxygen_c_api runs it
# (cmake/package_tests.cmake). Without doxygen there is neither.
find_package(Doxygen QUIET)
if(NOT DOXYGEN_FOUND)
  message(STATUS "doxygen not found: no `doc` target, no doxygen_c_api test")
  return()
endif()
set(P2B_DOC_OUTPUT_DIR ${PROJECT_BINARY_DIR}/doc)
set(P2B_DOC_INPUTS ${PROJECT_SOURCE_DIR}/c_api/p2b.h)
if(EXISTS ${PROJECT_SOURCE_DIR}/c_api/p2b_build_config.h)
  string(APPEND P2B_DOC_INPUTS " ${PROJECT_SOURCE_DIR}/c_api/p2b_build_config.h")
endif()
configure_file(${PROJECT_SOURCE_DIR}/docs/Doxyfile.in ${P2B_DOC_OUTPUT_DIR}/Doxyfile @ONLY)
add_custom_target(doc
  COMMAND ${DOXYGEN_EXECUTABLE} ${P2B_DOC_OUTPUT_DIR}/Doxyfile
  WORKING_DIRECTORY ${P2B_DOC_OUTPUT_DIR}
  COMMENT "Doxygen: C API reference in ${P2B_DOC_OUTPUT_DIR}/html"
  VERBATIM)
