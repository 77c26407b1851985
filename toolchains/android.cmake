# Android, through the NDK's own toolchain file with p2b's defaults.
#
# UNTESTED on the development machine: the NDK is not installed there. This
# file is written against the NDK's documented CMake variables (r27 or newer
# recommended); docs/mobile.md has the full build and packaging recipe.
#
#   cmake -S . -B build-android-arm64 -G Ninja \
#     -DCMAKE_TOOLCHAIN_FILE=toolchains/android.cmake -DANDROID_NDK=/path/to/ndk \
#     -DANDROID_ABI=arm64-v8a -DCMAKE_BUILD_TYPE=Release \
#     -DP2B_BUILD_TESTS=OFF -DP2B_BUILD_BENCH=OFF -DP2B_BUILD_TOOLS=OFF \
#     -DSODIUM_INCLUDE_DIR=<sodium>/include -DSODIUM_LIBRARY=<sodium>/lib/libsodium.a \
#     -DP2B_EIGEN_DIR=<dir holding Eigen/Core, e.g. /usr/include/eigen3>
#   cmake --build build-android-arm64 --target p2b_jni      # libp2b_jni.so
#
# Settings (each may be given with -D; the default is in brackets):
#   ANDROID_NDK       NDK root [$ANDROID_NDK, else $ANDROID_NDK_HOME]
#   ANDROID_ABI       arm64-v8a or armeabi-v7a [arm64-v8a]
#   ANDROID_PLATFORM  minimum API level [24]
#   ANDROID_STL       [c++_static]: libp2b_jni.so is meant to be the app's only
#                     library using the C++ runtime; otherwise use c++_shared
#   P2B_EIGEN_DIR     Eigen's headers (header-only, so the host's copy does):
#                     the NDK confines find_package to its sysroot
#   P2B_PORT          posix [default] needs libsodium built for the ABI, which
#                     Debian does not ship: pass SODIUM_INCLUDE_DIR and
#                     SODIUM_LIBRARY (libsodium's dist-build/android-*.sh make
#                     them). P2B_PORT=none builds without it, for apps that
#                     call the C API from their own native code and supply
#                     p2b_config.random and .crypto; the JNI binding cannot
#                     supply them, so it needs posix.

if(NOT ANDROID_NDK)
  if(DEFINED ENV{ANDROID_NDK})
    set(ANDROID_NDK "$ENV{ANDROID_NDK}")
  elseif(DEFINED ENV{ANDROID_NDK_HOME})
    set(ANDROID_NDK "$ENV{ANDROID_NDK_HOME}")
  endif()
endif()
if(NOT ANDROID_NDK OR NOT EXISTS "${ANDROID_NDK}/build/cmake/android.toolchain.cmake")
  message(FATAL_ERROR "Android NDK not found (ANDROID_NDK='${ANDROID_NDK}'). Pass "
                      "-DANDROID_NDK=<ndk root> or set ANDROID_NDK or ANDROID_NDK_HOME to the "
                      "directory holding build/cmake/android.toolchain.cmake.")
endif()

if(NOT DEFINED ANDROID_ABI)
  set(ANDROID_ABI arm64-v8a)
endif()
if(NOT ANDROID_ABI MATCHES "^(arm64-v8a|armeabi-v7a)$")
  message(STATUS "p2b: ANDROID_ABI=${ANDROID_ABI} is neither of the supported arm64-v8a and "
                 "armeabi-v7a")
endif()
if(NOT DEFINED ANDROID_PLATFORM)
  set(ANDROID_PLATFORM 24)
endif()
if(NOT DEFINED ANDROID_STL)
  set(ANDROID_STL c++_static)
endif()
# Device code never throws and never asks for a type at run time; the build
# also sets these per target (P2B_DEVICE_FLAGS), this covers the rest.
if(NOT DEFINED ANDROID_CPP_FEATURES)
  set(ANDROID_CPP_FEATURES "no-rtti no-exceptions")
endif()
# 16 KB pages (Android 15+ devices; Google Play requires it for new apps):
# NDK r27 aligns ELF segments to 16 KB when asked, r28 and later by default.
if(NOT DEFINED ANDROID_SUPPORT_FLEXIBLE_PAGE_SIZES)
  set(ANDROID_SUPPORT_FLEXIBLE_PAGE_SIZES ON)
endif()

include("${ANDROID_NDK}/build/cmake/android.toolchain.cmake")

# The same alignment for NDKs older than r27, which ignore the variable above.
string(APPEND CMAKE_SHARED_LINKER_FLAGS_INIT " -Wl,-z,max-page-size=16384")
string(APPEND CMAKE_EXE_LINKER_FLAGS_INIT " -Wl,-z,max-page-size=16384")

# try_compile projects re-read this file: hand them the NDK location too
# (the NDK's own file forwards its ANDROID_* settings).
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES ANDROID_NDK)
