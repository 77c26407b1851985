# libsodium for bare metal, built from Debian's source package in .deps/
# (scripts/setup.sh runs `apt-get source libsodium`). Only what the port and
# the test image call is compiled, all portable reference C:
#   crypto_box_seal (X25519 + XSalsa20-Poly1305, BLAKE2b nonce),
#   BLAKE2b generichash, Ed25519 sign/verify (SHA-512),
#   XChaCha20-Poly1305-IETF, and randombytes routed to the board's entropy
#   hook (randombytes_hook.h).
# Argon2 is left out; sodium_argon2_stub.c answers sodium_init's call to it.

file(GLOB P2B_SODIUM_CANDIDATES LIST_DIRECTORIES true "${PROJECT_SOURCE_DIR}/.deps/libsodium-*")
list(FILTER P2B_SODIUM_CANDIDATES EXCLUDE REGEX "\\.(tar|dsc)")
set(P2B_SODIUM_SOURCE_DIR "" CACHE PATH "libsodium source tree (default: .deps/libsodium-*)")
if(NOT P2B_SODIUM_SOURCE_DIR AND P2B_SODIUM_CANDIDATES)
  list(GET P2B_SODIUM_CANDIDATES 0 P2B_SODIUM_SOURCE_DIR)
endif()
set(sodium_src ${P2B_SODIUM_SOURCE_DIR}/src/libsodium)
if(NOT EXISTS "${sodium_src}/crypto_box/crypto_box_seal.c")
  message(FATAL_ERROR "libsodium sources not found: run scripts/setup.sh (it fetches Debian's "
                      "libsodium source package into .deps/) or set P2B_SODIUM_SOURCE_DIR")
endif()

# version.h is the one generated header; its values match the 1.0.18 release.
set(VERSION 1.0.18)
set(SODIUM_LIBRARY_VERSION_MAJOR 10)
set(SODIUM_LIBRARY_VERSION_MINOR 3)
set(SODIUM_LIBRARY_MINIMAL_DEF "")
# It lands outside the source tree, so its sibling include is made explicit.
file(READ ${sodium_src}/include/sodium/version.h.in sodium_version_in)
string(REPLACE "#include \"export.h\"" "#include <sodium/export.h>" sodium_version_in
               "${sodium_version_in}")
file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/sodium_generated/sodium/version.h
     CONTENT "${sodium_version_in}" @ONLY)

set(sodium_files
  sodium/core.c
  sodium/runtime.c
  sodium/utils.c
  sodium/version.c
  randombytes/randombytes.c
  crypto_verify/sodium/verify.c
  crypto_generichash/crypto_generichash.c
  crypto_generichash/blake2b/generichash_blake2.c
  crypto_generichash/blake2b/ref/generichash_blake2b.c
  crypto_generichash/blake2b/ref/blake2b-ref.c
  crypto_generichash/blake2b/ref/blake2b-compress-ref.c
  crypto_hash/sha512/hash_sha512.c
  crypto_hash/sha512/cp/hash_sha512_cp.c
  crypto_core/ed25519/ref10/ed25519_ref10.c
  crypto_core/hsalsa20/core_hsalsa20.c
  crypto_core/hsalsa20/ref2/core_hsalsa20_ref2.c
  crypto_core/salsa/ref/core_salsa_ref.c
  crypto_core/hchacha20/core_hchacha20.c
  crypto_scalarmult/crypto_scalarmult.c
  crypto_scalarmult/curve25519/scalarmult_curve25519.c
  crypto_scalarmult/curve25519/ref10/x25519_ref10.c
  crypto_stream/salsa20/stream_salsa20.c
  crypto_stream/salsa20/ref/salsa20_ref.c
  crypto_stream/xsalsa20/stream_xsalsa20.c
  crypto_stream/chacha20/stream_chacha20.c
  crypto_stream/chacha20/ref/chacha20_ref.c
  crypto_onetimeauth/crypto_onetimeauth.c
  crypto_onetimeauth/poly1305/onetimeauth_poly1305.c
  crypto_onetimeauth/poly1305/donna/poly1305_donna.c
  crypto_secretbox/crypto_secretbox.c
  crypto_secretbox/crypto_secretbox_easy.c
  crypto_secretbox/xsalsa20poly1305/secretbox_xsalsa20poly1305.c
  crypto_box/crypto_box.c
  crypto_box/crypto_box_easy.c
  crypto_box/crypto_box_seal.c
  crypto_box/curve25519xsalsa20poly1305/box_curve25519xsalsa20poly1305.c
  crypto_sign/crypto_sign.c
  crypto_sign/ed25519/sign_ed25519.c
  crypto_sign/ed25519/ref10/keypair.c
  crypto_sign/ed25519/ref10/open.c
  crypto_sign/ed25519/ref10/sign.c
  crypto_aead/xchacha20poly1305/sodium/aead_xchacha20poly1305.c)
list(TRANSFORM sodium_files PREPEND ${sodium_src}/)

add_library(p2b_sodium STATIC ${sodium_files} ${CMAKE_CURRENT_LIST_DIR}/sodium_argon2_stub.c)
target_include_directories(p2b_sodium SYSTEM PUBLIC
  $<BUILD_INTERFACE:${sodium_src}/include> $<BUILD_INTERFACE:${CMAKE_CURRENT_BINARY_DIR}/sodium_generated>)
# Upstream sources include their sibling headers, version.h too, unqualified.
target_include_directories(p2b_sodium PRIVATE ${sodium_src}/include/sodium
                                              ${CMAKE_CURRENT_BINARY_DIR}/sodium_generated/sodium)
# CONFIGURED: the defines below stand in for configure's checks (none of the
# HAVE_* probes apply to bare metal). The default randombytes implementation
# is the port's, so no /dev/urandom code is compiled at all.
target_compile_definitions(p2b_sodium
  PUBLIC SODIUM_STATIC=1
  PRIVATE CONFIGURED=1 NATIVE_LITTLE_ENDIAN=1 RANDOMBYTES_CUSTOM_IMPLEMENTATION=1
          "RANDOMBYTES_DEFAULT_IMPLEMENTATION=&p2b_cortex_m_randombytes")
set_source_files_properties(${sodium_src}/randombytes/randombytes.c PROPERTIES
  COMPILE_OPTIONS "-include;${CMAKE_CURRENT_SOURCE_DIR}/randombytes_hook.h")
# Upstream code, compiled as is: its warnings are not ours to fix.
target_compile_options(p2b_sodium PRIVATE -w)
