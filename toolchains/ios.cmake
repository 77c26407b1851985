# iOS with CMake's built-in iOS support and Xcode's SDKs: the device (arm64)
# or the simulator (arm64 and x86_64 in one fat library).
#
# UNTESTED on the development machine, which has neither macOS nor Xcode.
# scripts/ios-xcframework.sh builds both platforms and packages them;
# docs/mobile.md explains the rest.
#
#   cmake -S . -B build-ios-os -DCMAKE_TOOLCHAIN_FILE=toolchains/ios.cmake -DP2B_IOS_PLATFORM=OS \
#     -DCMAKE_BUILD_TYPE=Release -DP2B_BUILD_TESTS=OFF -DP2B_BUILD_BENCH=OFF -DP2B_BUILD_TOOLS=OFF \
#     -DSODIUM_INCLUDE_DIR=<sodium>/include -DSODIUM_LIBRARY=<sodium>/lib/libsodium.a
#   cmake --build build-ios-os --target p2b
#
# Static libraries only: iOS apps embed the library, and the shared
# p2b_shared target uses GNU linker options Apple's linker lacks, so build
# the `p2b` target (and its static dependencies), not `all`.
#
# Settings (-D; default in brackets):
#   P2B_IOS_PLATFORM          OS (device) or SIMULATOR [OS]
#   P2B_IOS_DEPLOYMENT_TARGET minimum iOS version [13.0]
#   CMAKE_OSX_ARCHITECTURES   [arm64 for OS, "arm64;x86_64" for SIMULATOR]

set(CMAKE_SYSTEM_NAME iOS)

if(NOT DEFINED P2B_IOS_PLATFORM)
  set(P2B_IOS_PLATFORM OS)
endif()
if(NOT DEFINED P2B_IOS_DEPLOYMENT_TARGET)
  set(P2B_IOS_DEPLOYMENT_TARGET 13.0)
endif()

if(P2B_IOS_PLATFORM STREQUAL "OS")
  set(CMAKE_OSX_SYSROOT iphoneos)
  if(NOT CMAKE_OSX_ARCHITECTURES)
    set(CMAKE_OSX_ARCHITECTURES arm64)
  endif()
elseif(P2B_IOS_PLATFORM STREQUAL "SIMULATOR")
  set(CMAKE_OSX_SYSROOT iphonesimulator)
  if(NOT CMAKE_OSX_ARCHITECTURES)
    set(CMAKE_OSX_ARCHITECTURES "arm64;x86_64")
  endif()
else()
  message(FATAL_ERROR "P2B_IOS_PLATFORM must be OS or SIMULATOR, not '${P2B_IOS_PLATFORM}'")
endif()
set(CMAKE_OSX_DEPLOYMENT_TARGET ${P2B_IOS_DEPLOYMENT_TARGET})

# try_compile projects re-read this file: hand them the same choices.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES P2B_IOS_PLATFORM P2B_IOS_DEPLOYMENT_TARGET)

# Device code never throws and never asks for a type at run time; the build
# also sets these per target (P2B_DEVICE_FLAGS), this covers the rest.
set(CMAKE_CXX_FLAGS_INIT "-fno-rtti -fno-exceptions")

# Build tools run on the Mac; libraries and headers must be built for iOS, so
# a Homebrew libsodium is never picked up by mistake. Packages may come from
# the host (Eigen is header-only; or pass -DP2B_EIGEN_DIR).
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
