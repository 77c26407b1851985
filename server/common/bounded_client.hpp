// HTTP client calls that never hold more of an answer than the caller
// allows. A peer (or anything between) that answers with a flood cannot grow
// this process's memory: the body is read in the client's chunks into a
// buffer that stops at the cap, and the connection is dropped there. Every
// client call the services make goes through here, so each names its cap.
#ifndef P2B_SERVER_COMMON_BOUNDED_CLIENT_HPP
#define P2B_SERVER_COMMON_BOUNDED_CLIENT_HPP

#include <httplib.h>

#include <cstddef>
#include <string>

namespace p2b::common {

struct ClientAnswer {
  int status = -1;   // the HTTP status; -1: no answer (see error)
  std::string body;  // at most the cap
  httplib::Headers headers;
  bool too_large = false;  // the answer passed the cap; status is -1
  std::string error;       // why there is no answer
};

// `method` is "GET" or "POST"; `body` and `content_type` are sent with a POST.
ClientAnswer bounded_request(httplib::Client& client, const std::string& method,
                             const std::string& path, std::string body,
                             const std::string& content_type, std::size_t max_answer_bytes);

}  // namespace p2b::common

#endif
