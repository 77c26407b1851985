#include "vfl/party_exchange.hpp"

#include <httplib.h>
#include <sodium.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/bounded_client.hpp"
#include "vfl/masked_request.hpp"

namespace p2b::vfl {

namespace {

// The largest error body a party's answer may carry ({"error":...}).
constexpr std::size_t kMaxErrorBytes = 4096;

// A restarted party's 409 names where it resumes; anything else names none.
uint64_t resume_round_of(const PartAnswer& a) {
  if (a.status != 409) return 0;
  const nlohmann::json e = nlohmann::json::parse(a.body, nullptr, false);
  if (!e.is_object() || e.value("error", "") != "replayed" || !e.contains("next_round_id") ||
      !e["next_round_id"].is_number_unsigned()) {
    return 0;
  }
  return e["next_round_id"].get<uint64_t>();
}

// One party's exchange, in its own thread.
void exchange(httplib::Client& cli, const BoxKey& key, MessageExpect ex,
              const std::vector<uint8_t>& sealed, int timeout_ms, PartAnswer* a) {
  try {
    const auto deadline = std::chrono::milliseconds(timeout_ms);
    // A genuine answer is one masked message (K items, or 1 for user
    // features) or a short JSON error: nothing larger is read, and an
    // answer past the cap is a wrong shape, as any mis-sized message is.
    const std::size_t cap = std::max(masked_message_bytes(ex.k_items, ex.d), kMaxErrorBytes);
    common::ClientCall call;
    call.method = "POST";
    call.path = "/v1/masked";
    call.body.assign(sealed.begin(), sealed.end());
    call.content_type = "application/octet-stream";
    call.max_answer_bytes = cap;
    call.deadline = deadline;  // the party's whole answer, not each read
    common::ClientAnswer res = common::bounded_request(cli, std::move(call));
    if (res.too_large) {
      a->error = "wrong_shape";
      return;
    }
    if (res.status < 0) return;
    a->transport_ok = true;
    a->status = res.status;
    a->body = std::move(res.body);
    if (a->status == 200) {
      // K' is K for item features, 1 for user features; the length says which.
      if (ex.k_items != 1 && a->body.size() == masked_message_bytes(1, ex.d)) ex.k_items = 1;
      a->opened = open_masked_message(reinterpret_cast<const uint8_t*>(a->body.data()),
                                      a->body.size(), key, ex, &a->msg);
    } else {
      a->next_round_id = resume_round_of(*a);
    }
  } catch (...) {
    a->transport_ok = false;
  }
}

}  // namespace

PartyClients::PartyClients(const std::vector<PartyLink>& links, int timeout_ms) {
  const auto deadline = std::chrono::milliseconds(timeout_ms);
  for (const PartyLink& link : links) {
    auto cli = std::make_unique<httplib::Client>(link.url);
    cli->set_connection_timeout(deadline);
    cli->set_read_timeout(deadline);
    cli->set_write_timeout(deadline);
    cli->set_keep_alive(true);
    cli->set_tcp_nodelay(true);
    clients_.push_back(std::move(cli));
  }
}

PartyClients::~PartyClients() = default;

std::vector<PartAnswer> ask_parties(const PartyChannels& ch, const RoundAsk& ask) {
  const std::size_t m = ch.links->size();
  std::vector<PartAnswer> answers(m);
  std::vector<std::thread> threads;
  // Joins whatever was started, also when starting the next one throws.
  struct JoinAll {
    std::vector<std::thread>* t;
    ~JoinAll() {
      for (std::thread& th : *t) {
        if (th.joinable()) th.join();
      }
    }
  } join_all{&threads};
  threads.reserve(m);
  for (std::size_t j = 0; j < m; ++j) {
    const auto party = static_cast<uint32_t>(j + 1);
    MaskedRequest mr;
    mr.party_index = party;
    mr.round_id = ask.round_id;
    std::copy(ask.user.begin(), ask.user.end(), mr.user_token);
    mr.item_ids = ask.items;
    std::vector<uint8_t> sealed;
    std::string err;
    if (!seal_masked_request(mr, ch.ap_box_sk, (*ch.links)[j].box_pk, &sealed, &err)) {
      answers[j].error = "missing_parties";
      continue;
    }
    MessageExpect ex;
    ex.party_index = party;
    std::copy(ask.block->mask_id, ask.block->mask_id + kMaskIdBytes, ex.current.mask_id);
    ex.current.epoch = ask.block->epoch;
    ex.d = ask.block->d;
    ex.k_items = static_cast<uint32_t>(ask.items.size());
    ex.last_round_id = (*ask.last_accepted)[party];
    if (j + 1 == m) {
      // The last party's exchange runs here: the others are under way, and
      // this thread would only wait for them.
      exchange(ch.clients->at(j), (*ch.keys)[j], ex, sealed, ask.timeout_ms, &answers[j]);
      break;
    }
    try {
      threads.emplace_back(exchange, std::ref(ch.clients->at(j)), std::cref((*ch.keys)[j]), ex,
                           std::move(sealed), ask.timeout_ms, &answers[j]);
    } catch (...) {
      answers[j].transport_ok = false;  // no thread: the party is not reached
    }
  }
  for (std::thread& t : threads) t.join();
  return answers;
}

void wipe_answers(std::vector<PartAnswer>* answers) {
  for (PartAnswer& a : *answers) {
    if (!a.msg.values.empty()) {
      sodium_memzero(a.msg.values.data(), a.msg.values.size() * sizeof(double));
    }
  }
}

}  // namespace p2b::vfl
