# Writes the usage example of c_api/p2b.h (the block between "\code" and
# "\endcode" in its file comment) to OUT as a C file, so the test compiles
# exactly what the header shows.
#   cmake -DHEADER=c_api/p2b.h -DOUT=header_example.c -P extract_example.cmake
file(READ "${HEADER}" text)
string(FIND "${text}" " * \\code\n" begin)
string(FIND "${text}" " * \\endcode\n" end)
if(begin EQUAL -1 OR end EQUAL -1 OR end LESS begin)
  message(FATAL_ERROR "${HEADER}: no \\code ... \\endcode example in the file comment")
endif()
math(EXPR begin "${begin} + 9")
math(EXPR length "${end} - ${begin}")
string(SUBSTRING "${text}" ${begin} ${length} block)
# Drop the comment's " * " (or " *" on empty lines) margin.
string(REGEX REPLACE "(^|\n) \\* ?" "\\1" code "${block}")
file(WRITE "${OUT}.tmp" "/* Extracted from ${HEADER}; do not edit. */\n${code}")
# Only touch OUT when the example changed, so an unrelated header edit does
# not rebuild the test.
configure_file("${OUT}.tmp" "${OUT}" COPYONLY)
