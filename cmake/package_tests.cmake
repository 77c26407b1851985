# ctests of the packaging: the self-contained libp2b.a, the committed nanopb
# code, the exported source tree and the C API reference. Included from the
# top-level CMakeLists.txt when P2B_BUILD_TESTS is on.

# libp2b.a holds every p2b and nanopb symbol it needs (nm).
add_test(NAME libp2b.self_contained
  COMMAND ${CMAKE_COMMAND} -DNM=${CMAKE_NM} -DLIB=$<TARGET_FILE:p2b>
          -P ${PROJECT_SOURCE_DIR}/tests/check_self_contained.cmake)
# ... and, like the core, neither allocates nor throws (the port included).
add_test(NAME libp2b.no_allocator_or_exception_symbols
  COMMAND ${CMAKE_COMMAND} -DNM=${CMAKE_NM} -DLIB=$<TARGET_FILE:p2b>
          -P ${PROJECT_SOURCE_DIR}/tests/check_core_symbols.cmake)

# The rest checks sources, not the target: host builds run it once.
if(CMAKE_CROSSCOMPILING)
  return()
endif()

# proto/generated is what the generator makes of proto/*.proto today.
find_program(P2B_PROTOC protoc)
find_program(P2B_PROTOC_GEN_NANOPB protoc-gen-nanopb)
if(P2B_PROTOC AND P2B_PROTOC_GEN_NANOPB)
  add_test(NAME proto.generated_code_fresh
    COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/regen-proto.sh --check ${PROJECT_BINARY_DIR}/proto-regen)
  set_tests_properties(proto.generated_code_fresh PROPERTIES ENVIRONMENT
    "PROTOC=${P2B_PROTOC};PROTOC_GEN_NANOPB=${P2B_PROTOC_GEN_NANOPB}")
else()
  message(STATUS "protoc or protoc-gen-nanopb not found: proto.generated_code_fresh skipped")
endif()

# The exported tree builds with make alone and runs the minimal example.
if(P2B_PORT STREQUAL "posix")
  get_target_property(p2b_core_sources p2b_core SOURCES)
  add_test(NAME export_tree_builds
    COMMAND bash ${PROJECT_SOURCE_DIR}/tests/export_tree_test.sh ${PROJECT_BINARY_DIR}/export-tree
            ${P2B_EIGEN_INCLUDE_DIR} ${SODIUM_LIBRARY} "${p2b_core_sources}")
  set_tests_properties(export_tree_builds PROPERTIES TIMEOUT 900 ENVIRONMENT
    "CC=${CMAKE_C_COMPILER};CXX=${CMAKE_CXX_COMPILER}")
endif()

# Each installed C header compiles alone, as strict C99 and as C++17, and
# declares its part of the API: an app may include just the part it uses.
set(p2b_alone_dir ${PROJECT_BINARY_DIR}/header-alone)
foreach(pair p2b.h:p2b_cmab_init p2b_common.h:p2b_status_str p2b_agent.h:p2b_agent_init
             p2b_shared_model.h:p2b_shared_model_init p2b_pfcb.h:p2b_cmab_init)
  string(REPLACE ":" ";" pair "${pair}")
  list(GET pair 0 P2B_ALONE_HEADER)
  list(GET pair 1 P2B_ALONE_NAME)
  string(REGEX REPLACE "\\.h$" "" stem "${P2B_ALONE_HEADER}")
  file(CONFIGURE OUTPUT ${p2b_alone_dir}/${stem}_alone.c CONTENT
"/* cmake/package_tests.cmake: @P2B_ALONE_HEADER@ alone declares @P2B_ALONE_NAME@. */
#include \"@P2B_ALONE_HEADER@\"

int main(void) { return sizeof(&@P2B_ALONE_NAME@) == 0; }
" @ONLY)
  add_test(NAME c_api.header_compiles_alone.${stem}_c99
    COMMAND ${CMAKE_C_COMPILER} -std=c99 -Wall -Wextra -Werror -pedantic -fsyntax-only
            -I${PROJECT_SOURCE_DIR}/c_api ${p2b_alone_dir}/${stem}_alone.c)
  add_test(NAME c_api.header_compiles_alone.${stem}_cxx17
    COMMAND ${CMAKE_CXX_COMPILER} -x c++ -std=c++17 -Wall -Wextra -Werror -pedantic -fsyntax-only
            -I${PROJECT_SOURCE_DIR}/c_api ${p2b_alone_dir}/${stem}_alone.c)
endforeach()

# Every function, parameter and return of the C API is documented.
if(TARGET doc)
  add_test(NAME doxygen_c_api
    COMMAND ${DOXYGEN_EXECUTABLE} ${P2B_DOC_OUTPUT_DIR}/Doxyfile
    WORKING_DIRECTORY ${P2B_DOC_OUTPUT_DIR})
endif()
