# Cross toolchain: 64-bit ARM Linux (Debian arm64) with the Debian cross
# compiler (g++-aarch64-linux-gnu). Tests run under qemu-user.
#
#   cmake -S . -B build-aarch64 -G Ninja \
#         -DCMAKE_TOOLCHAIN_FILE=toolchains/aarch64-linux-gnu.cmake
#
# Target libraries come from Debian multiarch (libsodium-dev:arm64 in
# /usr/lib/aarch64-linux-gnu); header-only packages such as Eigen3 are found
# through their CMake config in /usr/share.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(P2B_CROSS_TRIPLE aarch64-linux-gnu)
set(P2B_CROSS_SYSROOT /usr/${P2B_CROSS_TRIPLE})

set(CMAKE_C_COMPILER   ${P2B_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${P2B_CROSS_TRIPLE}-g++)

set(CMAKE_FIND_ROOT_PATH ${P2B_CROSS_SYSROOT})
# Programs (nm, qemu, ...) run on the build host.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
# BOTH: the cross sysroot first, then the host prefixes, where CMake only
# looks in the target's multiarch directory (CMAKE_LIBRARY_ARCHITECTURE,
# detected from the compiler) for libraries.
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# ctest (and gtest_discover_tests PRE_TEST discovery) run target executables
# through this. -L makes qemu resolve the target's absolute paths in the
# cross sysroot first, then on the host: the dynamic loader and libstdc++
# (/lib/...) come from /usr/aarch64-linux-gnu/lib, libc and libsodium
# (libsodium-dev:<arch>) from Debian multiarch /usr/lib/aarch64-linux-gnu.
# Override with -DCMAKE_CROSSCOMPILING_EMULATOR=... (e.g. a different qemu).
if(NOT DEFINED CMAKE_CROSSCOMPILING_EMULATOR)
  set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64;-L;${P2B_CROSS_SYSROOT})
endif()
