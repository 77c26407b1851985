// What both VFL services answer alike: a ServiceReply as an HTTP answer,
// POST /v1/mask (open the bundle file again after the PMG rotated Q), and
// the "mask" readiness check.
#pragma once

#include <httplib.h>

#include <string>

#include "common/json_log.hpp"
#include "common/readiness.hpp"
#include "vfl/party_service.hpp"

namespace p2b::vfl {

inline void answer(httplib::Response& res, const ServiceReply& r) {
  res.status = r.status;
  res.set_content(r.body, r.content_type);
}

// `Service`: PartyService or ApService (reload_mask, epoch, mask_id_hex).
// `model_reset`: a new mask starts the service's model afresh (the AP's).
template <typename Service>
void serve_mask_reload(httplib::Server& server, Service& service, common::Logger& log,
                       bool model_reset) {
  server.Post("/v1/mask",
              [&service, &log, model_reset](const httplib::Request&, httplib::Response& res) {
                const ServiceReply r = service.reload_mask();
                if (r.status == 200) {
                  log.info("mask_rotated", {{"epoch", service.epoch()},
                                            {"mask_id", service.mask_id_hex()},
                                            {"model_reset", model_reset}});
                } else {
                  log.warn("mask_refused", {{"error", r.code}});
                }
                answer(res, r);
              });
}

template <typename Service>
void add_mask_check(common::Readiness& readiness, const Service& service) {
  readiness.add("mask", [&service] {
    return common::check_ok("epoch " + std::to_string(service.epoch()) + " mask_id " +
                            service.mask_id_hex());
  });
}

}  // namespace p2b::vfl
