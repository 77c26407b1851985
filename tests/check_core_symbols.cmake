# Fails when a device archive (core, nanopb runtime, generated code) references an allocator, the exception runtime
# or RTTI. Run as: cmake -DNM=<nm> -DLIB=<libp2b_core.a> -P check_core_symbols.cmake
execute_process(COMMAND ${NM} -u ${LIB} OUTPUT_VARIABLE undefined RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm failed on ${LIB}")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${undefined}")
set(forbidden "")
foreach(line IN LISTS lines)
  string(STRIP "${line}" line)
  string(REGEX REPLACE "^U +" "" sym "${line}")
  if(sym MATCHES "^(malloc|calloc|realloc|free|aligned_alloc|posix_memalign|memalign|valloc)$"
     OR sym MATCHES "^_Zn[wa]"          # operator new / new[]
     OR sym MATCHES "^_Zd[la]"          # operator delete / delete[]
     OR sym MATCHES "^__cxa_(throw|allocate_exception|begin_catch|end_catch|rethrow)"
     OR sym MATCHES "^__gxx_personality"
     OR sym MATCHES "^_Unwind_Resume"
     OR sym MATCHES "^_ZTI"             # typeinfo: RTTI
     OR sym MATCHES "^__dynamic_cast")
    list(APPEND forbidden "${sym}")
  endif()
endforeach()
list(LENGTH lines n_undefined)
if(forbidden)
  list(REMOVE_DUPLICATES forbidden)
  message(FATAL_ERROR "${LIB} references forbidden symbols: ${forbidden}")
endif()
message(STATUS "${LIB}: ${n_undefined} undefined references, none to an allocator, the exception runtime or RTTI")
