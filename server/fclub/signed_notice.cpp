#include "fclub/signed_notice.hpp"

#include <sodium.h>

#include "fclub/wire/fclub_wire.hpp"

namespace p2b::fclub {

std::string notice_message(const char* label, const uint8_t* deployment_fp,
                           std::initializer_list<NoticeField> fields) {
  std::string m(label);
  m.append(reinterpret_cast<const char*>(deployment_fp), kFpBytes);
  for (const NoticeField& f : fields) {
    for (int i = 0; i < f.bytes; ++i) m.push_back(static_cast<char>(f.value >> (8 * i)));
  }
  return m;
}

std::string sign_notice(const uint8_t sign_sk[64], const std::string& message) {
  std::string sig(kNoticeSignatureBytes, '\0');
  crypto_sign_detached(reinterpret_cast<unsigned char*>(sig.data()), nullptr,
                       reinterpret_cast<const unsigned char*>(message.data()), message.size(),
                       sign_sk);
  return sig;
}

bool verify_notice(const uint8_t sign_pk[32], const std::string& message,
                   const std::string& signature) {
  if (signature.size() != kNoticeSignatureBytes) return false;
  return crypto_sign_verify_detached(reinterpret_cast<const unsigned char*>(signature.data()),
                                     reinterpret_cast<const unsigned char*>(message.data()),
                                     message.size(), sign_pk) == 0;
}

}  // namespace p2b::fclub
