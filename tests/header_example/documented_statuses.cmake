# Reads every status-returning function of c_api/p2b.h with the statuses its
# comment lists ("\retval P2B_..."), and writes for the tests:
#   OUT_TABLE: {"name", {P2B_..., ...}},   one line a function
#   OUT_WRAP:  #define name(...) p2b_doc::checked("name", ::name(__VA_ARGS__))
# so a test that includes the wrappers fails on any status a function returns
# that its documentation does not list. Fails when a function that returns a
# p2b_status lists no status or is not marked P2B_NODISCARD.
#   cmake -DHEADER=... -DOUT_TABLE=... -DOUT_WRAP=... -P documented_statuses.cmake
# HEADER is the umbrella p2b.h: the headers it includes from its own
# directory (one per protocol) are read after it, as one list of lines.
# Square brackets and semicolons would bend CMake's list splitting (an
# unclosed "[" in a comment once merged every later line into one, hiding
# the functions after it), and no pattern below needs them.
get_filename_component(header_dir "${HEADER}" DIRECTORY)
file(STRINGS "${HEADER}" includes REGEX "^#include \"p2b_[a-z_]+\\.h\"")
set(text "")
foreach(file IN ITEMS "${HEADER}" ${includes})
  string(REGEX REPLACE "^#include \"([^\"]+)\".*" "${header_dir}/\\1" file "${file}")
  file(READ "${file}" file_text)
  string(APPEND text "${file_text}\n")
endforeach()
string(REPLACE "[" "(" text "${text}")
string(REPLACE "]" ")" text "${text}")
string(REPLACE ";" "," text "${text}")
string(REPLACE "\n" ";" lines "${text}")
set(statuses "")
set(in_decl FALSE)
set(decl "")
set(table "")
set(wrap "")
set(count 0)
foreach(line IN LISTS lines)
  if(line MATCHES "^/\\*\\*")
    set(statuses "")
  endif()
  if(line MATCHES "\\\\retval (P2B_[A-Z_]+)")
    list(APPEND statuses ${CMAKE_MATCH_1})
  endif()
  if(line MATCHES "P2B_API p2b_status" AND NOT line MATCHES "P2B_NODISCARD")
    message(FATAL_ERROR "${HEADER}: not P2B_NODISCARD: ${line}")
  endif()
  if(line MATCHES "^P2B_NODISCARD P2B_API")
    set(in_decl TRUE)
    set(decl "")
  endif()
  if(in_decl)
    string(APPEND decl " ${line}")
    if(decl MATCHES "p2b_status +(p2b_[a-z0-9_]+)\\(")
      set(name ${CMAKE_MATCH_1})
      set(in_decl FALSE)
      if(NOT statuses)
        message(FATAL_ERROR "${HEADER}: ${name} lists no \\retval status")
      endif()
      list(JOIN statuses ", " joined)
      string(APPEND table "{\"${name}\", {${joined}}},\n")
      string(APPEND wrap
        "#define ${name}(...) p2b_doc::checked(\"${name}\", ::${name}(__VA_ARGS__))\n")
      math(EXPR count "${count} + 1")
      set(statuses "")
    endif()
  endif()
endforeach()
if(count LESS 20)
  message(FATAL_ERROR "${HEADER}: found only ${count} documented functions; parser out of date?")
endif()
file(WRITE "${OUT_TABLE}.tmp" "${table}")
file(WRITE "${OUT_WRAP}.tmp" "${wrap}")
configure_file("${OUT_TABLE}.tmp" "${OUT_TABLE}" COPYONLY)
configure_file("${OUT_WRAP}.tmp" "${OUT_WRAP}" COPYONLY)
