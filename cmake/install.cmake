# Install rules and package files: the C headers, libp2b.a, libp2b.so with
# its SONAME links, a CMake package (find_package(p2b)) and a pkg-config file
# (p2b.pc).
# Included once from the top-level CMakeLists.txt after the library targets.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Packages are for OS targets; firmware (e.g. the cortex-m port) links
# libp2b.a from its build tree, or builds an exported tree
# (scripts/export-tree.sh).
if(NOT P2B_PORT MATCHES "^(posix|none)$")
  return()
endif()

# The stable surface is the C API: libp2b.a and libp2b.so, each holding the
# whole device library (core, port, generated code, nanopb runtime), and the
# C headers (p2b.h, which includes the rest). include/p2b/*.hpp is internal
# and not installed.
set(p2b_install_targets p2b)
if(TARGET p2b_shared)
  list(APPEND p2b_install_targets p2b_shared)
endif()
install(TARGETS ${p2b_install_targets} EXPORT p2bTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# p2b.h and the headers it includes, with the compiled limits (P2B_MAX_*,
# P2B_ARENA_ALIGN) of p2b_build_config.h: P2B_PUBLIC_HEADERS, CMakeLists.txt.
install(FILES ${P2B_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# ---- CMake package: lib/cmake/p2b ----
set(p2b_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/p2b)
install(EXPORT p2bTargets NAMESPACE p2b:: DESTINATION ${p2b_cmake_dir})
# Where libsodium was found at build time: the config's fallback when the
# consumer has no pkg-config.
if(P2B_PORT STREQUAL "posix")
  get_filename_component(P2B_SODIUM_LIBRARY_DIR "${SODIUM_LIBRARY}" DIRECTORY)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/p2bConfig.cmake.in
  ${PROJECT_BINARY_DIR}/p2bConfig.cmake INSTALL_DESTINATION ${p2b_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/p2bConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/p2bConfig.cmake ${PROJECT_BINARY_DIR}/p2bConfigVersion.cmake
  DESTINATION ${p2b_cmake_dir})

# ---- pkg-config: lib/pkgconfig/p2b.pc ----
# The prefix is taken relative to the .pc file, so `cmake --install --prefix`
# anywhere gives a working file.
set(p2b_pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH P2B_PC_PREFIX_FROM_PCFILEDIR /${p2b_pc_dir} /)
string(REGEX REPLACE "/$" "" P2B_PC_PREFIX_FROM_PCFILEDIR "${P2B_PC_PREFIX_FROM_PCFILEDIR}")
set(P2B_PC_REQUIRES_PRIVATE "")
if(P2B_PORT STREQUAL "posix")
  set(P2B_PC_REQUIRES_PRIVATE "libsodium")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/p2b.pc.in ${PROJECT_BINARY_DIR}/p2b.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/p2b.pc DESTINATION ${p2b_pc_dir})
