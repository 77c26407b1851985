// The VFL services' own /metrics families, from their stats (the counters
// /v1/stats reports as JSON); the HTTP counters and the common families come
// from common::ServiceHost.
#pragma once

#include <cstdint>

#include "vfl/ap_service.hpp"
#include "vfl/party_service.hpp"

namespace p2b::common {
class PrometheusText;
}

namespace p2b::vfl {

// p2b_vfl_party_*: requests answered and refused, time spent, mask epoch.
void render_party_metrics(common::PrometheusText& out, const PartyStats& s, uint64_t epoch);

// p2b_vfl_ap_*: decisions, rewards, time deciding, P2BV bytes and messages
// per party, the durable state's counters and the mask epoch.
void render_ap_metrics(common::PrometheusText& out, const ApStats& s, uint64_t epoch);

}  // namespace p2b::vfl
