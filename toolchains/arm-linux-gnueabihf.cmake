# Cross toolchain: 32-bit ARM Linux, hard float (Debian armhf) with the Debian
# cross compiler (g++-arm-linux-gnueabihf). Tests run under qemu-user.
#
#   cmake -S . -B build-armhf -G Ninja \
#         -DCMAKE_TOOLCHAIN_FILE=toolchains/arm-linux-gnueabihf.cmake
#
# No -march/-mfpu/-mfloat-abi flags on purpose: the compiler's Debian armhf
# defaults (armv7-a, vfpv3-d16, Thumb-2, hard-float ABI) are the baseline, and
# NEON or other FPU options could change float results between targets.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR armv7l)

set(P2B_CROSS_TRIPLE arm-linux-gnueabihf)
set(P2B_CROSS_SYSROOT /usr/${P2B_CROSS_TRIPLE})

set(CMAKE_C_COMPILER   ${P2B_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${P2B_CROSS_TRIPLE}-g++)

# GCC's -Wpsabi notes ("parameter passing for argument of type ... changed in
# GCC 7.1") flood every Eigen and std::vector<uint64_t> instantiation on the
# ARM EABI. They only matter when linking objects built by GCC < 7.1, which
# this build never does. Diagnostic only: no effect on generated code.
set(CMAKE_C_FLAGS_INIT   "-Wno-psabi")
set(CMAKE_CXX_FLAGS_INIT "-Wno-psabi")

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
# (/lib/...) come from /usr/arm-linux-gnueabihf/lib, libc and libsodium
# (libsodium-dev:<arch>) from Debian multiarch /usr/lib/arm-linux-gnueabihf.
# Override with -DCMAKE_CROSSCOMPILING_EMULATOR=... (e.g. a different qemu).
if(NOT DEFINED CMAKE_CROSSCOMPILING_EMULATOR)
  set(CMAKE_CROSSCOMPILING_EMULATOR qemu-arm;-L;${P2B_CROSS_SYSROOT})
endif()
