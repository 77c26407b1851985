# The one way a GoogleTest suite becomes ctest tests: p2b_add_gtest(). Included
# once from the top-level CMakeLists.txt before any subdirectory, so every
# directory's tests (tests/, server/*, tools/*) see GoogleTest and the helper.
# Tests that are not GoogleTest (shell scripts, C programs, cmake -P checks)
# stay plain add_test() calls (docs/testing.md, "Adding a test").
include_guard(GLOBAL)

if(P2B_BUILD_TESTS)
  include(GoogleTest)
  # Cross builds compile GoogleTest from Debian's source package for the
  # target; host builds use the prebuilt static libraries. Found here, in the
  # top directory, so the imported targets reach every subdirectory.
  if(CMAKE_CROSSCOMPILING)
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
    add_subdirectory(/usr/src/googletest ${CMAKE_BINARY_DIR}/googletest EXCLUDE_FROM_ALL)
    if(NOT TARGET GTest::gtest_main)
      add_library(GTest::gtest_main ALIAS gtest_main)
    endif()
  else()
    find_package(GTest REQUIRED)
  endif()
endif()

# p2b_add_gtest(NAME <target> SOURCES <files>...
#               [LIBS <libraries>...] [INCLUDES <dirs>...]
#               [DEFINITIONS <defs>...] [COMPILE_OPTIONS <options>...]
#               [DEPENDS <targets>...] [PREFIX <ctest prefix>]
#               [DISCOVERY_TIMEOUT <seconds>] [PROPERTIES <name> <value>...])
#
# Builds the executable <target> from SOURCES with -Wall -Wextra -Wshadow
# (plus COMPILE_OPTIONS), the INCLUDES and DEFINITIONS private to it, links
# LIBS and GTest::gtest_main, builds DEPENDS first (programs a test runs), and
# registers each of its tests with ctest as <PREFIX><Suite>.<Test>, listed
# when ctest runs (DISCOVERY_MODE PRE_TEST, so a build under load or under
# qemu is not held up by listing; DISCOVERY_TIMEOUT, 120 s by default, bounds
# the listing). PROPERTIES are set on every test found (FIXTURES_REQUIRED,
# ENVIRONMENT, TIMEOUT, ...). Relative SOURCES are from the calling directory.
function(p2b_add_gtest)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;PREFIX;DISCOVERY_TIMEOUT"
    "SOURCES;LIBS;INCLUDES;DEFINITIONS;COMPILE_OPTIONS;DEPENDS;PROPERTIES")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "p2b_add_gtest(${arg_NAME}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_NAME OR NOT arg_SOURCES)
    message(FATAL_ERROR "p2b_add_gtest: NAME and SOURCES are required")
  endif()
  if(NOT arg_DISCOVERY_TIMEOUT)
    set(arg_DISCOVERY_TIMEOUT 120)
  endif()

  add_executable(${arg_NAME} ${arg_SOURCES})
  target_compile_options(${arg_NAME} PRIVATE -Wall -Wextra -Wshadow ${arg_COMPILE_OPTIONS})
  if(arg_INCLUDES)
    target_include_directories(${arg_NAME} PRIVATE ${arg_INCLUDES})
  endif()
  if(arg_DEFINITIONS)
    target_compile_definitions(${arg_NAME} PRIVATE ${arg_DEFINITIONS})
  endif()
  target_link_libraries(${arg_NAME} PRIVATE ${arg_LIBS} GTest::gtest_main)
  if(arg_DEPENDS)
    add_dependencies(${arg_NAME} ${arg_DEPENDS})
  endif()

  set(discover DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT ${arg_DISCOVERY_TIMEOUT})
  if(arg_PREFIX)
    list(APPEND discover TEST_PREFIX ${arg_PREFIX})
  endif()
  if(arg_PROPERTIES)
    list(APPEND discover PROPERTIES ${arg_PROPERTIES})
  endif()
  gtest_discover_tests(${arg_NAME} ${discover})
endfunction()
