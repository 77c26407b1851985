# Fails when libp2b.so exports (defines in its dynamic symbol table) anything
# that is not p2b_*: the version script c_api/p2b.map must hide the core,
# nanopb, the port and the C++ runtime bits.
# Run as: cmake -DNM=<nm> -DLIB=<libp2b.so> -P check_exports.cmake
execute_process(COMMAND ${NM} -D --defined-only ${LIB} OUTPUT_VARIABLE out RESULT_VARIABLE rc
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm -D failed on ${LIB}: ${err}")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${out}")
set(exported 0)
set(stray "")
foreach(line IN LISTS lines)
  # "<address> <type> <name>[@version]"
  if(NOT line MATCHES "^[0-9a-fA-F]* *([A-Za-z]) ([^ @]+)")
    continue()
  endif()
  set(type "${CMAKE_MATCH_1}")
  set(sym "${CMAKE_MATCH_2}")
  if(type STREQUAL "A")  # a version node name (absolute), not code or data
    continue()
  endif()
  if(sym MATCHES "^p2b_")
    math(EXPR exported "${exported} + 1")
  else()
    list(APPEND stray "${type} ${sym}")
  endif()
endforeach()
if(stray)
  list(JOIN stray "\n  " stray_lines)
  message(FATAL_ERROR "${LIB} exports symbols outside p2b_*:\n  ${stray_lines}")
endif()
if(exported EQUAL 0)
  message(FATAL_ERROR "${LIB} exports no p2b_* symbol at all")
endif()
message(STATUS "${LIB}: ${exported} defined dynamic symbols, all p2b_*")
