// Constants shared by the agent's implementation files; not part of the API.
#pragma once

#include <cstddef>
#include <cstdint>

namespace p2b {

constexpr uint32_t kAgentMagic = 0x41423250U;  // "P2BA" little-endian
constexpr uint32_t kLayoutVersion = 1;

constexpr uint32_t kSlotEmpty = 0;
constexpr uint32_t kSlotAwaiting = 1;
constexpr uint32_t kSlotRewarded = 2;

// sizeof(Agent::PendingSlot) and sizeof(Agent::WindowEntry), checked by
// static_asserts in reporter.cpp where the types are visible.
constexpr std::size_t kPendingSlotBytes = 24;
constexpr std::size_t kWindowEntryBytes = 12;

}  // namespace p2b
