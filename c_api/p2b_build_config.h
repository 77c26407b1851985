/**
 * \file p2b_build_config.h
 * \brief The compiled limits of p2b, in one place.
 *
 * Every limit below bounds stack use or a fixed-size buffer of the device
 * core, so it is fixed when the library is compiled. A firmware build that
 * needs other values sets them in its own header and compiles the library
 * (and the app) with -DP2B_USER_CONFIG_FILE='"my_p2b_config.h"'; whatever
 * that header defines wins, and everything it leaves out keeps the default
 * here. The C header p2b.h and the core's p2b/config.hpp both read this
 * file, so they cannot disagree. Plain C, includable from C and C++.
 *
 * A library and the app that links it must be built with the same values:
 * the arena size and the checks in p2b_agent_init follow them.
 */
#ifndef P2B_BUILD_CONFIG_H
#define P2B_BUILD_CONFIG_H

#ifdef P2B_USER_CONFIG_FILE
#include P2B_USER_CONFIG_FILE
#endif

/** \brief Largest context length d. The core keeps a few P2B_MAX_DIM-long scalar
 * buffers on the stack per call. Saved state, model bundles and codebook
 * files hold at most 64 values per row as generated (the max_count options in
 * proto/p2b.options and proto/p2b_state.options), so an agent with d above 64
 * decides and learns, but its save, restore and model functions return
 * P2B_ERR_DIMENSION_MISMATCH and codebook files of that d do not parse. */
#ifndef P2B_MAX_DIM
#define P2B_MAX_DIM 64
#endif

/** \brief Largest number of actions (arms) K. */
#ifndef P2B_MAX_ACTIONS
#define P2B_MAX_ACTIONS 1024
#endif

/** \brief Largest codebook size k. */
#ifndef P2B_MAX_CODES
#define P2B_MAX_CODES 65536
#endif

/** \brief Largest number of decimal digits q kept by the encoder; 10^q must fit in
 * a uint32_t. */
#ifndef P2B_MAX_DIGITS
#define P2B_MAX_DIGITS 6
#endif

/** \brief Largest reporting window t (interactions per participation decision). */
#ifndef P2B_MAX_WINDOW
#define P2B_MAX_WINDOW 4096
#endif

/** \brief Largest ring of decisions awaiting a reward. */
#ifndef P2B_MAX_PENDING
#define P2B_MAX_PENDING 65536
#endif

/** \brief Largest outbox of reports awaiting a poll. */
#ifndef P2B_MAX_OUTBOX
#define P2B_MAX_OUTBOX 256
#endif

/** \brief Largest context length d of the shared-parameter model (p2b_shared.h).
 * It keeps no per-call stack buffer of this length (its scratch is in the
 * arena), so raising it costs nothing until an arena is sized for it. Vertical
 * federation runs d = 100 and more; the tests cover d = 300. */
#ifndef P2B_SHARED_MAX_DIM
#define P2B_SHARED_MAX_DIM 1024
#endif

/** \brief Largest number of candidate items per shared-parameter decision. */
#ifndef P2B_SHARED_MAX_ITEMS
#define P2B_SHARED_MAX_ITEMS 65536
#endif

/** \brief Alignment, in bytes, of an agent's arena and of every block inside it. The
 * default covers Eigen's static alignment on x86-64, aarch64 and Cortex-M4. */
#ifndef P2B_ARENA_ALIGN
#define P2B_ARENA_ALIGN 16
#endif

/* Sanity checks: a limit outside its range would overflow a loop counter or
 * an index, or make the arena unusable. */
#if P2B_MAX_DIM < 1 || P2B_MAX_DIM > 4096
#error "P2B_MAX_DIM must be in 1..4096"
#endif
#if P2B_MAX_ACTIONS < 1 || P2B_MAX_ACTIONS > 1048576
#error "P2B_MAX_ACTIONS must be in 1..1048576"
#endif
#if P2B_MAX_CODES < 1 || P2B_MAX_CODES > 16777216
#error "P2B_MAX_CODES must be in 1..16777216"
#endif
#if P2B_MAX_DIGITS < 1 || P2B_MAX_DIGITS > 9
#error "P2B_MAX_DIGITS must be in 1..9 (10^q must fit in a uint32_t)"
#endif
#if P2B_MAX_WINDOW < 1 || P2B_MAX_WINDOW > 1048576
#error "P2B_MAX_WINDOW must be in 1..1048576"
#endif
#if P2B_MAX_PENDING < 1 || P2B_MAX_PENDING > 16777216
#error "P2B_MAX_PENDING must be in 1..16777216"
#endif
#if P2B_MAX_OUTBOX < 1 || P2B_MAX_OUTBOX > 65536
#error "P2B_MAX_OUTBOX must be in 1..65536"
#endif
#if P2B_SHARED_MAX_DIM < 1 || P2B_SHARED_MAX_DIM > 16384
#error "P2B_SHARED_MAX_DIM must be in 1..16384"
#endif
#if P2B_SHARED_MAX_ITEMS < 1 || P2B_SHARED_MAX_ITEMS > 16777216
#error "P2B_SHARED_MAX_ITEMS must be in 1..16777216"
#endif
#if P2B_ARENA_ALIGN < 16 || (P2B_ARENA_ALIGN & (P2B_ARENA_ALIGN - 1)) != 0
#error "P2B_ARENA_ALIGN must be a power of two, at least 16"
#endif

#endif /* P2B_BUILD_CONFIG_H */
