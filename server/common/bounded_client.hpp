// HTTP client calls that never hold more of an answer than the caller
// allows, nor for longer. A peer (or anything between) that answers with a
// flood cannot grow this process's memory: the body is read in the client's
// chunks into a buffer that stops at the cap, and the connection is dropped
// there. One that trickles a small answer cannot hold the caller past the
// call's deadline: it is checked when the head has come and at every chunk
// (a silent peer is cut by the client's read timeout, which the caller sets
// no longer than the deadline). Every client call the services make goes through here,
// so each names its cap and its deadline.
#ifndef P2B_SERVER_COMMON_BOUNDED_CLIENT_HPP
#define P2B_SERVER_COMMON_BOUNDED_CLIENT_HPP

#include <httplib.h>

#include <chrono>
#include <cstddef>
#include <string>

namespace p2b::common {

struct ClientCall {
  std::string method = "GET";  // "GET" or "POST"
  std::string path;
  std::string body;          // sent with a POST
  std::string content_type;  // likewise
  httplib::Headers headers;  // more request headers (a signed read's, say)
  std::size_t max_answer_bytes = 0;
  std::chrono::milliseconds deadline{0};  // the whole call; 0: the client's timeouts only
};

struct ClientAnswer {
  int status = -1;   // the HTTP status; -1: no answer (see error)
  std::string body;  // at most the cap
  httplib::Headers headers;
  bool too_large = false;        // the answer passed the cap; status is -1
  bool deadline_passed = false;  // the answer came too slowly; status is -1
  std::string error;             // why there is no answer
};

ClientAnswer bounded_request(httplib::Client& client, ClientCall call);

}  // namespace p2b::common

#endif
