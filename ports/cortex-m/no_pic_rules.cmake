# Loaded by toolchains/cortex-m4.cmake as CMAKE_USER_MAKE_RULES_OVERRIDE, after
# CMake's GNU compiler rules. A bare-metal image has no loader, so position-
# independent code buys nothing; worse, -fPIC code reaches globals through a
# GOT that a plain start-up never relocates. The project asks for PIC on its
# libraries, so the PIC flags are emptied for this platform instead.
set(CMAKE_C_COMPILE_OPTIONS_PIC "")
set(CMAKE_C_COMPILE_OPTIONS_PIE "")
set(CMAKE_CXX_COMPILE_OPTIONS_PIC "")
set(CMAKE_CXX_COMPILE_OPTIONS_PIE "")
