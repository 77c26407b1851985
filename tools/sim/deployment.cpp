#include "deployment.hpp"

#include <sodium.h>

#include <cstring>
#include <ctime>
#include <stdexcept>
#include <string>

#include "c_agent.hpp"
#include "wire/model_bundle.hpp"

namespace p2b::sim {
namespace {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

Deployment::Deployment() {
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to start");
  uint8_t pk[crypto_box_PUBLICKEYBYTES], sk[crypto_box_SECRETKEYBYTES];
  crypto_box_keypair(pk, sk);
  server::make_box_key(pk, sk, &shuffler_);
  crypto_box_keypair(pk, sk);
  server::make_box_key(pk, sk, &analyzer_);
  sodium_memzero(sk, sizeof sk);
  static_assert(sizeof verify_pk_ == crypto_sign_PUBLICKEYBYTES, "Ed25519 public key");
  static_assert(sizeof sign_sk_ == crypto_sign_SECRETKEYBYTES, "Ed25519 secret key");
  crypto_sign_keypair(verify_pk_, sign_sk_);
}

Deployment::~Deployment() {
  sodium_memzero(sign_sk_, sizeof sign_sk_);
  sodium_memzero(&shuffler_, sizeof shuffler_);
  sodium_memzero(&analyzer_, sizeof analyzer_);
}

void Deployment::configure(p2b_config* cfg) const {
  cfg->shuffler_public_key = shuffler_.pk;
  cfg->analyzer_public_key = analyzer_.pk;
  cfg->analyzer_verify_key = verify_pk_;
}

void Deployment::collect(p2b_agent* agent, bool crypto, std::vector<SharedTuple>* out) const {
  if (!crypto) {
    p2b_tuple r;
    while (p2b_agent_poll_tuple(agent, &r) == P2B_OK) out->push_back({r.code, r.action, r.reward});
    return;
  }
  uint8_t envelope[P2B_ENVELOPE_BYTES];
  size_t len = 0;
  p2b_status st;
  while ((st = p2b_agent_poll_envelope(agent, envelope, sizeof envelope, &len)) == P2B_OK) {
    server::OuterOpened outer{};
    server::OpenStatus os = server::open_outer(envelope, len, &shuffler_, 1, &outer);
    if (os != server::OpenStatus::ok) {
      throw std::runtime_error(std::string("shuffler refused an envelope: ") +
                               server::open_status_str(os));
    }
    server::InnerOpened inner{};
    os = server::open_inner(outer.inner, sizeof outer.inner, &analyzer_, 1, &inner);
    if (os != server::OpenStatus::ok) {
      throw std::runtime_error(std::string("analyzer refused an inner layer: ") +
                               server::open_status_str(os));
    }
    if (inner.code != outer.crowd_id) throw std::runtime_error("crowd id differs from the code");
    out->push_back({inner.code, inner.action, inner.reward});
  }
  check(st, "poll_report");
}

double Deployment::report_crypto_us(int reports) const {
  p2b_config cfg;
  check(p2b_config_default(&cfg), "config");
  const float centroid[2] = {0.5F, 0.5F};
  cfg.dim = 2;
  cfg.n_actions = 2;
  cfg.centroids = centroid;
  cfg.n_codes = 1;
  cfg.window = 1;
  cfg.participation = 0.999999;
  cfg.epsilon_budget = 1e12;
  cfg.rng_mode = P2B_RNG_SEEDED;
  configure(&cfg);
  CAgent agent(cfg);
  std::vector<SharedTuple> sink;
  double seconds = 0;
  int done = 0;
  // Reports are made outside the timer; only sealing and opening are timed.
  for (int guard = 0; done < reports && guard < 4 * reports; ++guard) {
    uint32_t action = 0;
    uint64_t id = 0;
    check(p2b_agent_decide(agent.get(), centroid, 2, &action, &id), "decide");
    check(p2b_agent_reward(agent.get(), id, 1.0F), "reward");
    const std::size_t before = sink.size();
    const double t0 = thread_cpu_seconds();
    collect(agent.get(), true, &sink);
    seconds += thread_cpu_seconds() - t0;
    done += static_cast<int>(sink.size() - before);
  }
  if (done == 0) throw std::runtime_error("no report to time");
  return seconds * 1e6 / done;
}

std::vector<uint8_t> Deployment::sign_model(const p2b_agent* device, const std::vector<double>& a,
                                            const std::vector<double>& b, uint64_t version) const {
  p2b_fingerprints fp;
  check(p2b_agent_fingerprints(device, &fp), "fingerprints");
  server::ModelSpec spec;
  // a holds K d x d matrices and b K vectors of d.
  spec.dim = static_cast<uint32_t>(a.size() / b.size());
  spec.n_actions = static_cast<uint32_t>(b.size() / spec.dim);
  spec.version = version;
  spec.created_unix = static_cast<uint64_t>(std::time(nullptr));
  std::memcpy(spec.codebook_fp, fp.codebook, sizeof spec.codebook_fp);
  std::vector<uint8_t> bundle;
  std::string err;
  if (!server::build_model_bundle(spec, a.data(), b.data(), sign_sk_, &bundle, &err)) {
    throw std::runtime_error("analyzer: " + err);
  }
  return bundle;
}

}  // namespace p2b::sim
