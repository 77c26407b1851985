# The version lives in one place, c_api/p2b.h (P2B_VERSION_MAJOR/MINOR/PATCH).
# Read here before project() so the project, the .so version, the CMake
# package and p2b.pc all take it from the header, as zstd's build does.
# Sets P2B_HEADER_VERSION ("MAJOR.MINOR.PATCH").
set(p2b_version_header "${CMAKE_CURRENT_LIST_DIR}/../c_api/p2b.h")
file(STRINGS "${p2b_version_header}" p2b_version_lines
     REGEX "^#define P2B_VERSION_(MAJOR|MINOR|PATCH) +[0-9]+")
set(p2b_version_parts "")
foreach(part MAJOR MINOR PATCH)
  if(NOT p2b_version_lines MATCHES "#define P2B_VERSION_${part} +([0-9]+)")
    message(FATAL_ERROR "P2B_VERSION_${part} not found in ${p2b_version_header}")
  endif()
  list(APPEND p2b_version_parts "${CMAKE_MATCH_1}")
endforeach()
list(JOIN p2b_version_parts "." P2B_HEADER_VERSION)
# A version bump (scripts/release.sh prepare) must reconfigure an existing
# build tree, or its PROJECT_VERSION, SONAME and p2b.pc stay the old ones.
if(NOT CMAKE_SCRIPT_MODE_FILE)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${p2b_version_header}")
endif()
unset(p2b_version_parts)
unset(p2b_version_lines)
unset(p2b_version_header)
