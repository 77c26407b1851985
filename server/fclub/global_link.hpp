// The local service's calls to p2b-fclub-global over HTTP, every answer
// read through common::bounded_request: a POST's answer is capped at
// kMaxJsonAnswerBytes, a GET's at the cap its caller names (the phase: a
// short JSON; downloads: kMaxDownloadsPerAnswer P2BD messages). A global,
// or anything posing as one, that answers with more is refused
// (kAnswerTooLarge) after at most the cap was read, so it cannot grow the
// local's memory.
#pragma once

#include <string>

#include "fclub/fclub_services.hpp"

namespace p2b::fclub {

// `url` is http://HOST:PORT; `timeout_seconds` bounds connecting and each
// read and write.
GlobalLink http_global_link(const std::string& url, double timeout_seconds);

}  // namespace p2b::fclub
