# Shared body of the Debian cross toolchains for ARM Linux. The including
# file sets P2B_CROSS_TRIPLE (e.g. aarch64-linux-gnu) and P2B_CROSS_QEMU
# (e.g. qemu-aarch64) first.
set(CMAKE_SYSTEM_NAME Linux)
set(P2B_CROSS_SYSROOT /usr/${P2B_CROSS_TRIPLE})

set(CMAKE_C_COMPILER   ${P2B_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${P2B_CROSS_TRIPLE}-g++)

set(CMAKE_FIND_ROOT_PATH ${P2B_CROSS_SYSROOT})
# Programs (nm, qemu, ...) run on the build host.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
# BOTH: the cross sysroot first, then the host prefixes, where CMake only
# looks in the target's multiarch directory (CMAKE_LIBRARY_ARCHITECTURE,
# detected from the compiler) for libraries. That finds libsodium-dev:<arch>
# in /usr/lib/<triple>, and Eigen's CMake package (header-only) in
# /usr/share like any package.
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# ctest (and gtest_discover_tests PRE_TEST discovery) run target executables
# through this. -L makes qemu resolve the target's absolute paths in the
# cross sysroot first, then on the host: the dynamic loader and libstdc++
# come from /usr/<triple>/lib, libc and libsodium from /usr/lib/<triple>.
# Override with -DCMAKE_CROSSCOMPILING_EMULATOR=... (e.g. a different qemu).
if(NOT DEFINED CMAKE_CROSSCOMPILING_EMULATOR)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${P2B_CROSS_QEMU};-L;${P2B_CROSS_SYSROOT})
endif()
