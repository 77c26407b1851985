// FCLUB as two services (docs/fclub-services.md): p2b-fclub-global holds the
// GlobalServer, p2b-fclub-local a LocalServer. They talk over HTTP in the
// P2BU / P2BD wire formats (fclub/wire): every message signed by its sender,
// padded to one size per dim and sealed to its recipient. Each keeps its
// state in memory and, with a store (open_store), journals every input it
// accepts before answering (global_journal.hpp, local_journal.hpp). Server
// code: no exception crosses this API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/json_log.hpp"
#include "fclub/fclub_config.hpp"
#include "fclub/global_journal.hpp"
#include "fclub/global_server.hpp"
#include "fclub/local_journal.hpp"
#include "fclub/local_requests.hpp"
#include "fclub/local_server.hpp"
#include "fclub/messages.hpp"
#include "fclub/wire/fclub_wire.hpp"

namespace p2b::fclub {

// Key files in a service's --keys DIR (raw libsodium keys, keyfiles.hpp).
inline constexpr const char* kBoxPkFile = "fclub.box.pk";      // X25519, 32 bytes
inline constexpr const char* kBoxSkFile = "fclub.box.sk";      // 32 bytes, 0600
inline constexpr const char* kSignPkFile = "fclub.sign.pk";    // Ed25519, 32 bytes
inline constexpr const char* kSignSkFile = "fclub.sign.sk";    // 64 bytes, 0600
inline constexpr const char* kNoiseSkFile = "fclub.noise.sk";  // local only: tree seed, 32 bytes

struct ServiceKeys {
  uint8_t box_pk[32] = {};
  uint8_t box_sk[32] = {};
  uint8_t sign_pk[32] = {};
  uint8_t sign_sk[64] = {};
  TreeSeed noise{};  // local servers only
};

struct PeerKeys {
  uint8_t box_pk[32] = {};
  uint8_t sign_pk[32] = {};
};

// Loads DIR's own keys (the box pair and the signing pair must match; the
// noise seed when `with_noise`). `warning` is set when a secret file is
// readable by others.
bool load_service_keys(const std::string& dir, bool with_noise, ServiceKeys* out,
                       std::string* warning, std::string* err);
// Loads DIR's public keys (fclub.box.pk, fclub.sign.pk).
bool load_peer_keys(const std::string& dir, PeerKeys* out, std::string* err);
// Writes a fresh key set into DIR (created if missing), the noise seed too
// when `with_noise`. For tests and quick deployments.
bool generate_service_keys(const std::string& dir, bool with_noise, std::string* err);

// GET /metrics: a service's stats_json() in the Prometheus text format,
// every whole number under `prefix` (a gauge for levels, a counter for
// counts, and one labelled counter per nested "..._by_X" object, labelled X).
std::string stats_as_prometheus(const std::string& prefix, const nlohmann::json& stats);

// Between the algorithm's messages and the wire's.
ClusterStats to_wire_stats(const Stats& s, uint32_t dim);
Stats from_wire_stats(const ClusterStats& c);

// At most this many downloads in one answer to GET /v1/fclub/downloads, so
// that a local can cap what it reads from the global (global_link.hpp).
inline constexpr std::size_t kMaxDownloadsPerAnswer = 64;
// A JSON answer of the global's (phase, acknowledgements, errors) is far
// shorter than this.
inline constexpr std::size_t kMaxJsonAnswerBytes = 4096;

struct Reply {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  std::string code;  // error code, empty on success
};

// ---- global ----------------------------------------------------------------

struct GlobalStats {
  uint64_t uploads_accepted = 0;
  uint64_t uploads_refused = 0;
  uint64_t replays_refused = 0;
  uint64_t downloads_queued = 0;
  uint64_t downloads_acked = 0;
  uint64_t acks_accepted = 0;
  uint64_t acks_refused = 0;  // forged or unsigned acknowledgements
  uint64_t merges = 0;
  uint64_t models_served = 0;
  std::map<uint32_t, uint64_t> accepted_by_server;
  std::map<uint32_t, uint64_t> queued_by_server;
  std::map<std::string, uint64_t> refused_by_reason;
};

class GlobalService {
 public:
  GlobalService(const FclubConfig& cfg, const ServiceKeys& keys,
                std::map<uint32_t, PeerKeys> locals, common::Logger* log);

  // Opens (or creates) the journal at `path` and replays it, before the
  // service answers anything. False, with `err` set, when the store cannot
  // be opened or replayed; the service must not start then.
  bool open_store(const std::string& path, std::string* err);

  Reply upload(const std::string& body);  // POST /v1/fclub/upload
  // POST /v1/fclub/phase-done: `signature` must be the local's (phase_done.hpp).
  Reply phase_done(uint32_t server, uint32_t phase, uint32_t count, const std::string& signature);
  // GET /v1/fclub/downloads: at most kMaxDownloadsPerAnswer of server's
  // queued downloads of version > after. It only reads: anyone may ask, the
  // downloads are sealed to their local.
  Reply downloads(uint32_t server, uint64_t after);
  // POST /v1/fclub/downloads-ack: deletes server's downloads of version <=
  // `version`, when `signature` is that local's (downloads_ack.hpp); 403
  // ack_bad_signature otherwise.
  Reply downloads_ack(uint32_t server, uint64_t version, const std::string& signature);
  Reply advance();  // POST /v1/fclub/advance
  // GET /v1/fclub/cluster-model: the signed P2BM warm start (one arm, A =
  // ridge I + S_g, b = u_g) of the global cluster that (server, local
  // cluster) belongs to, for its devices' SharedModel (docs/fclub-device.md).
  // `now_unix` is its created time; the version grows with every change of
  // the global state, so a device never takes an older model.
  Reply cluster_model(uint32_t server, uint32_t local_cluster, uint64_t now_unix);
  uint32_t phase() const;
  // False once a journal write failed: the service answers 503 from then on
  // (its memory may be ahead of its store) and must be restarted.
  bool store_ok() const;
  nlohmann::json stats_json() const;

 private:
  struct Queued {
    uint64_t version;
    std::vector<uint8_t> wire;
  };
  struct PhaseStart {
    std::vector<StatsUpload> uploads;
    std::map<uint32_t, uint32_t> announced;  // server -> phase-start uploads it sent
    std::vector<StatsUpload> early;          // in-phase uploads that came before the merge
    bool merged = false;
  };
  Reply refuse(int status, const std::string& code);
  Reply upload_locked(const std::string& body, const Upload& u, OpenStatus st);
  Reply phase_done_locked(uint32_t server, uint32_t phase, uint32_t count,
                          const std::string& signature);
  Reply downloads_ack_locked(uint32_t server, uint64_t version, const std::string& signature);
  Reply advance_locked();
  // Journals an accepted input (when there is a store and this is not its
  // replay); false (and the service failed) if it could not be committed.
  bool journal_locked(const JournalEntry& e);
  void try_merge_locked(uint32_t phase);
  void queue_locked(const std::vector<StatsDownload>& downs);

  FclubConfig cfg_;
  common::Logger* log_;
  ServiceKeys keys_;
  std::map<uint32_t, PeerKeys> locals_;
  SignerLookup signers_;
  std::map<std::vector<uint8_t>, uint32_t> signer_server_;  // signer fp -> server id
  OpenExpect expect_;

  mutable std::mutex mu_;
  GlobalServer global_;
  uint32_t phase_ = 0;  // the phase clock
  std::map<uint32_t, PhaseStart> starts_;
  // (server, phase, local_cluster) -> the last seq taken (0 after the phase start).
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> last_seq_;
  std::set<std::tuple<uint32_t, uint32_t, uint32_t>> started_;  // phase-start seen
  std::set<std::vector<uint8_t>> seen_;                         // hashes of opened uploads
  std::map<uint32_t, std::deque<Queued>> queues_;
  std::map<uint32_t, uint64_t> next_version_;
  uint64_t state_version_ = 0;  // + 1 on every accepted upload and merge
  GlobalStats stats_;
  std::unique_ptr<GlobalJournal> journal_;
  bool replaying_ = false;
  bool store_failed_ = false;
};

// ---- local -----------------------------------------------------------------

struct LocalStats {
  uint64_t recommends = 0;
  uint64_t rewards = 0;
  uint64_t rewards_repeated = 0;  // a reward id seen before: answered, not applied again
  uint64_t uploads_fired = 0;
  uint64_t uploads_sent = 0;
  uint64_t uploads_refused = 0;
  uint64_t downloads_applied = 0;
  uint64_t downloads_stale = 0;
  uint64_t downloads_refused = 0;
  uint64_t acks_sent = 0;
  uint64_t acks_refused = 0;
  uint64_t answers_too_large = 0;  // the global's answer passed its cap: refused
  uint64_t phases_started = 0;
};

// The HTTP calls the local server makes to the global one
// (global_link.hpp). They return the HTTP status; kNoAnswer: none came;
// kAnswerTooLarge: the answer passed its cap (a POST's is
// kMaxJsonAnswerBytes, a GET's `max_reply`) and was dropped unread.
inline constexpr int kNoAnswer = -1;
// How many of the latest reward ids a local remembers (about 10 MiB at most).
inline constexpr std::size_t kRewardIdWindow = 100000;
inline constexpr int kAnswerTooLarge = -2;
struct GlobalLink {
  std::function<int(const std::string& path, const std::string& body, std::string* reply)> post;
  std::function<int(const std::string& path, std::size_t max_reply, std::string* reply)> get;
};

class LocalService {
 public:
  LocalService(const FclubConfig& cfg, uint32_t id, uint32_t users, const ServiceKeys& keys,
               const PeerKeys& global, common::Logger* log);

  // Opens (or creates) the journal at `path` and replays it, before the
  // service answers or polls anything. False, with `err` set, when the
  // store cannot be opened or replayed; `refused` then says whether the
  // file itself is at fault (damaged, another kind or another local's, an
  // entry this build refuses): restarting cannot help, an operator must act.
  bool open_store(const std::string& path, std::string* err, bool* refused);

  Reply recommend(const std::string& body);  // POST /v1/recommend
  // POST /v1/reward: 200 only once the reward is committed to the store.
  Reply reward(const std::string& body);
  // False once a journal write failed: rewards are answered 503 and the
  // background loop stops (memory and store may disagree); restart it.
  bool store_ok() const;
  nlohmann::json stats_json() const;

  // One round of the background loop: the phase, the outbox, the downloads.
  void poll(const GlobalLink& link);

 private:
  struct Outgoing {
    bool phase_done = false;
    uint32_t phase = 0;
    uint32_t count = 0;
    uint32_t local_cluster = 0;  // an upload's id, for the log
    uint32_t seq = 0;
    std::vector<uint8_t> wire;
  };
  // Counts and logs an answer over its cap; true if `status` is one.
  bool too_large(int status, const char* what);
  // The handlers, each both the live path (after its input is journalled)
  // and the replay of its journal entry.
  void reward_locked(const RewardRequest& req);
  void start_phase_locked(uint32_t phase);
  void apply_download_locked(const Download& d);
  // Takes the outbox's front, `o`, out as answered `status` (200: the
  // global has it). False (nothing changed) when the outbox is empty: on
  // replay, a journal that does not match the outbox it rebuilt (replay
  // also checks that the front is the message the entry names).
  bool sent_locked(const Outgoing& o, int status);
  // Journals `batch` (when there is a store and this is not its replay) in
  // one transaction; false, and the service failed, if it was not committed.
  bool journal_locked(const std::vector<LocalEntry>& batch);
  bool replay_locked(const LocalEntry& e);
  void queue_upload_locked(const StatsUpload& up);
  void poll_phase(const GlobalLink& link);
  void flush(const GlobalLink& link);
  void poll_downloads(const GlobalLink& link);
  void send_ack(const GlobalLink& link);

  FclubConfig cfg_;
  common::Logger* log_;
  uint32_t id_;
  ServiceKeys keys_;
  PeerKeys global_;
  SignerLookup signers_;
  OpenExpect expect_;

  mutable std::mutex mu_;
  LocalServer local_;
  uint32_t phase_ = 0;
  uint64_t applied_version_ = 0;
  uint64_t acked_version_ = 0;  // the last version the global took an ack of
  std::deque<Outgoing> outbox_;
  // The ids of the last kRewardIdWindow rewards that carried one, oldest
  // first: a resend within the window is answered and not applied again.
  // Rebuilt by replay, since each id is journalled with its reward.
  std::deque<std::string> reward_ids_;
  std::set<std::string> reward_id_set_;
  LocalStats stats_;
  std::unique_ptr<LocalJournal> journal_;
  bool replaying_ = false;
  bool store_failed_ = false;
};

}  // namespace p2b::fclub
