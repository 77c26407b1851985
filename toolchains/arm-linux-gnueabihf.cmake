# Cross toolchain: 32-bit ARM Linux, hard float (Debian armhf) with the Debian
# cross compiler (g++-arm-linux-gnueabihf). Tests run under qemu-user.
#
#   cmake --preset armhf          (or -DCMAKE_TOOLCHAIN_FILE=toolchains/arm-linux-gnueabihf.cmake)
#
# No -march/-mfpu/-mfloat-abi flags on purpose: the compiler's Debian armhf
# defaults (armv7-a, vfpv3-d16, Thumb-2, hard-float ABI) are the baseline, and
# NEON or other FPU options could change float results between targets.
set(CMAKE_SYSTEM_PROCESSOR armv7l)
set(P2B_CROSS_TRIPLE arm-linux-gnueabihf)
set(P2B_CROSS_QEMU qemu-arm)

# GCC's -Wpsabi notes ("parameter passing for argument of type ... changed in
# GCC 7.1") flood every Eigen and std::vector<uint64_t> instantiation on the
# ARM EABI. They only matter when linking objects built by GCC < 7.1, which
# this build never does. Diagnostic only: no effect on generated code.
set(CMAKE_C_FLAGS_INIT   "-Wno-psabi")
set(CMAKE_CXX_FLAGS_INIT "-Wno-psabi")

include(${CMAKE_CURRENT_LIST_DIR}/linux-cross-common.cmake)
