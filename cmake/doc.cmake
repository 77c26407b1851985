# The `doc` target: Doxygen over the C API headers (docs/Doxyfile.in), HTML
# into <build>/doc/html. Any Doxygen warning, an undocumented function or
# parameter included, fails it; the ctest doxygen_c_api runs it
# (cmake/package_tests.cmake). With P2B_INSTALL_DOCS (ON when doxygen is
# found) it is part of the default build and `cmake --install` puts the HTML
# in share/doc/p2b/html. Without doxygen there is neither.
find_package(Doxygen QUIET)
option(P2B_INSTALL_DOCS "Build and install the HTML C API reference (share/doc/p2b/html)"
       ${DOXYGEN_FOUND})
if(NOT DOXYGEN_FOUND)
  if(P2B_INSTALL_DOCS)
    message(FATAL_ERROR "P2B_INSTALL_DOCS needs doxygen, which was not found")
  endif()
  message(STATUS "doxygen not found: no `doc` target, no doxygen_c_api test, no HTML reference")
  return()
endif()
set(P2B_DOC_OUTPUT_DIR ${PROJECT_BINARY_DIR}/doc)
# Every installed header (cmake/install.cmake), the umbrella p2b.h first.
set(P2B_DOC_HEADERS ${P2B_PUBLIC_HEADERS})
list(JOIN P2B_DOC_HEADERS " " P2B_DOC_INPUTS)
configure_file(${PROJECT_SOURCE_DIR}/docs/Doxyfile.in ${P2B_DOC_OUTPUT_DIR}/Doxyfile @ONLY)
# The index page stands for the whole output: doxygen runs again only when a
# header or the Doxyfile changes.
set(P2B_DOC_INDEX ${P2B_DOC_OUTPUT_DIR}/html/index.html)
add_custom_command(OUTPUT ${P2B_DOC_INDEX}
  COMMAND ${DOXYGEN_EXECUTABLE} ${P2B_DOC_OUTPUT_DIR}/Doxyfile
  WORKING_DIRECTORY ${P2B_DOC_OUTPUT_DIR}
  DEPENDS ${P2B_DOC_HEADERS} ${P2B_DOC_OUTPUT_DIR}/Doxyfile
  COMMENT "Doxygen: C API reference in ${P2B_DOC_OUTPUT_DIR}/html"
  VERBATIM)
if(P2B_INSTALL_DOCS)
  add_custom_target(doc ALL DEPENDS ${P2B_DOC_INDEX})
  include(GNUInstallDirs)
  install(DIRECTORY ${P2B_DOC_OUTPUT_DIR}/html/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/html)
else()
  add_custom_target(doc DEPENDS ${P2B_DOC_INDEX})
endif()
