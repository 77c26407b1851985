#include "fclub/phase_done.hpp"

#include "fclub/signed_notice.hpp"

namespace p2b::fclub {

namespace {

std::string message_of(const uint8_t* deployment_fp, const PhaseDone& done) {
  return notice_message("p2b fclub phase-done v1", deployment_fp,
                        {{done.server, 4}, {done.phase, 4}, {done.count, 4}});
}

}  // namespace

std::string sign_phase_done(const uint8_t sign_sk[64], const uint8_t* deployment_fp,
                            const PhaseDone& done) {
  return sign_notice(sign_sk, message_of(deployment_fp, done));
}

bool verify_phase_done(const uint8_t sign_pk[32], const uint8_t* deployment_fp,
                       const PhaseDone& done, const std::string& body) {
  return verify_notice(sign_pk, message_of(deployment_fp, done), body);
}

}  // namespace p2b::fclub
