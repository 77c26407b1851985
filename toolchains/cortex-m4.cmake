# Cross toolchain: bare-metal Cortex-M4F (arm-none-eabi GCC + newlib, Debian
# packages gcc-arm-none-eabi, libnewlib-arm-none-eabi,
# libstdc++-arm-none-eabi-newlib). Builds the device library, a libsodium
# subset and a test image for qemu's mps2-an386 (scripts/cortex-m-test.sh,
# docs/ports.md).
#
#   cmake -G Ninja -B build-cortex-m4 -DCMAKE_TOOLCHAIN_FILE=toolchains/cortex-m4.cmake
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR cortex-m4)

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)

# No OS to link a test executable against: CMake's compiler checks build a
# static library instead.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# The hard-float ABI with the M4's single-precision FPU. -ffunction-sections
# and --gc-sections keep only what an image really calls.
set(P2B_CORTEX_M_CPU_FLAGS "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
set(CMAKE_C_FLAGS_INIT "${P2B_CORTEX_M_CPU_FLAGS} -ffunction-sections -fdata-sections")
# -Wno-psabi: GCC's notes about a parameter-passing change in GCC 7.1 only
# matter when mixing objects from older compilers; this build never does.
set(CMAKE_CXX_FLAGS_INIT "${CMAKE_C_FLAGS_INIT} -Wno-psabi")
set(CMAKE_ASM_FLAGS_INIT "${P2B_CORTEX_M_CPU_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${P2B_CORTEX_M_CPU_FLAGS} -Wl,--gc-sections")
# No -fPIC on bare metal, although the project asks for it (see the file).
set(CMAKE_USER_MAKE_RULES_OVERRIDE ${CMAKE_CURRENT_LIST_DIR}/../ports/cortex-m/no_pic_rules.cmake)

# Only the toolchain's own sysroot: no host library or header is ever found.
# Programs (size, nm) run on the build host.
set(CMAKE_FIND_ROOT_PATH /usr/lib/arm-none-eabi)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Eigen is header-only and not in that sysroot: pass -DP2B_EIGEN_DIR=<dir
# holding Eigen/Core> (scripts/cortex-m-test.sh does, from scripts/lib/eigen.sh).

# The bare-metal port (libsodium built for the target, malloc trap), and no
# host-only parts: tests, tools and benchmarks need an OS.
set(P2B_PORT cortex-m CACHE STRING "Platform port")
set(P2B_BUILD_TESTS OFF CACHE BOOL "Build the tests")
set(P2B_BUILD_TOOLS OFF CACHE BOOL "Build the host tools and demo")
set(P2B_BUILD_BENCH OFF CACHE BOOL "Build the benchmarks")
