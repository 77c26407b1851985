# Sourced by the scripts that run LLVM tools. They name Debian's LLVM 14
# (scripts/setup.sh installs clang, clang-format and clang-tidy, which are
# version 14 on Debian 12) by its versioned names: the Swift toolchain puts
# its own clang (LLVM 21, without Debian's libFuzzer and sanitizer runtimes)
# on PATH too, so a bare `clang` would mean whichever PATH lists first.
# P2B_LLVM_SUFFIX overrides the suffix ("-15", or "" for PATH's).
llvm_suffix=${P2B_LLVM_SUFFIX--14}
p2b_clang=clang$llvm_suffix
p2b_clangxx=clang++$llvm_suffix
p2b_clang_format=clang-format$llvm_suffix
p2b_clang_tidy=clang-tidy$llvm_suffix
