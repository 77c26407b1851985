# Cross toolchain: 64-bit ARM Linux (Debian arm64) with the Debian cross
# compiler (g++-aarch64-linux-gnu). Tests run under qemu-user.
#
#   cmake --preset aarch64        (or -DCMAKE_TOOLCHAIN_FILE=toolchains/aarch64-linux-gnu.cmake)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(P2B_CROSS_TRIPLE aarch64-linux-gnu)
set(P2B_CROSS_QEMU qemu-aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/linux-cross-common.cmake)
