#include "fclub/downloads_ack.hpp"

#include "fclub/signed_notice.hpp"

namespace p2b::fclub {

namespace {

// Its own label: a phase-done signature never passes as an ack.
std::string message_of(const uint8_t* deployment_fp, const DownloadsAck& ack) {
  return notice_message("p2b fclub downloads-ack v1", deployment_fp,
                        {{ack.server, 4}, {ack.version, 8}});
}

}  // namespace

std::string sign_downloads_ack(const uint8_t sign_sk[64], const uint8_t* deployment_fp,
                               const DownloadsAck& ack) {
  return sign_notice(sign_sk, message_of(deployment_fp, ack));
}

bool verify_downloads_ack(const uint8_t sign_pk[32], const uint8_t* deployment_fp,
                          const DownloadsAck& ack, const std::string& body) {
  return verify_notice(sign_pk, message_of(deployment_fp, ack), body);
}

}  // namespace p2b::fclub
