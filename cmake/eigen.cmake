# Eigen, header-only: the target Eigen3::Eigen, for the device core and the
# host tools alike.
#
# Either P2B_EIGEN_DIR names a directory holding Eigen/Core (an Eigen source
# tree or an include dir such as /usr/include/eigen3), or Eigen's own CMake
# package is found (find_package(Eigen3 3.3 NO_MODULE); give Eigen3_DIR when
# a cross toolchain confines the search to its sysroot). No toolchain file
# special-cases it. P2B_EIGEN_INCLUDE_DIR is set to the directory used (the
# export-tree test copies Eigen from it).
set(P2B_EIGEN_DIR "" CACHE PATH
    "Directory holding Eigen/Core (Eigen source or include dir); empty: find_package(Eigen3)")

if(P2B_EIGEN_DIR)
  if(NOT EXISTS "${P2B_EIGEN_DIR}/Eigen/Core")
    message(FATAL_ERROR "P2B_EIGEN_DIR=${P2B_EIGEN_DIR} has no Eigen/Core")
  endif()
  set(P2B_EIGEN_INCLUDE_DIR "${P2B_EIGEN_DIR}")
  add_library(Eigen3::Eigen INTERFACE IMPORTED GLOBAL)
  target_include_directories(Eigen3::Eigen SYSTEM INTERFACE "${P2B_EIGEN_DIR}")
else()
  find_package(Eigen3 3.3 NO_MODULE)
  if(NOT Eigen3_FOUND)
    message(FATAL_ERROR "Eigen 3.3+ not found: install it (Debian: libeigen3-dev), or pass "
                        "-DEigen3_DIR=<dir of Eigen3Config.cmake> or "
                        "-DP2B_EIGEN_DIR=<dir holding Eigen/Core>")
  endif()
  get_target_property(P2B_EIGEN_INCLUDE_DIR Eigen3::Eigen INTERFACE_INCLUDE_DIRECTORIES)
  list(GET P2B_EIGEN_INCLUDE_DIR 0 P2B_EIGEN_INCLUDE_DIR)
endif()
message(STATUS "Eigen: ${P2B_EIGEN_INCLUDE_DIR}")
