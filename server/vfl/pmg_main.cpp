// p2b-vfl-pmg: the privacy mask generator of O3M vertical federation
// (docs/vertical-services.md). Draws a Haar-random orthogonal Q from a seed
// taken from the CSPRNG (never printed, never written), splits it by
// --partition and writes one sealed, signed P2BQ bundle per party. Rotating
// the mask is running it again with a higher --epoch.
#include <sodium.h>

#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "common/command_line.hpp"
#include "common/exit_codes.hpp"
#include "common/keyfiles.hpp"
#include "common/option_values.hpp"
#include "vfl/mask.hpp"
#include "vfl/mask_bundle.hpp"
#include "vfl/published_mask.hpp"

namespace {

namespace kf = p2b::keyfiles;
namespace vfl = p2b::vfl;
using p2b::common::ParseOutcome;

constexpr char kSynopsis[] =
    "usage: p2b-vfl-pmg --partition D0,D1,... --party-key FILE (once per party, in party order)\n"
    "                   --sign-key FILE --epoch N --out-dir DIR";
constexpr char kDescription[] =
    "Draws a fresh Haar-random orthogonal mask Q (d = the sum of the partition)\n"
    "from a CSPRNG seed that never leaves this process, and writes party j's\n"
    "column block, signed with the PMG's Ed25519 key and sealed to the party's\n"
    "X25519 public key, to DIR/party-<j>.p2bq. Party 0 is the active party.\n"
    "Prints the mask_id, the epoch and each party's key fingerprint.";

struct Options {
  vfl::Partition partition;
  std::vector<std::string> party_keys;
  std::string sign_key;
  uint64_t epoch = 0;
  std::string out_dir;
};

bool parse_partition(const std::string& text, vfl::Partition* out) {
  out->clear();
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string part =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    uint64_t v = 0;
    if (!p2b::common::parse_count(part, 1, vfl::kMaxMaskDim, &v)) return false;
    out->push_back(static_cast<uint32_t>(v));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return !out->empty();
}

ParseOutcome parse_args(int argc, char** argv, Options* opt, std::string* message) {
  p2b::common::CommandLine cli("p2b-vfl-pmg", kSynopsis, kDescription, true);
  std::string partition, epoch;
  cli.add_value("--partition", &partition, "block sizes d_j in party order, e.g. 20,20,20,20,20");
  cli.app().add_option("--party-key", opt->party_keys,
                       "a party's X25519 public key file; once per party, party 0 first");
  cli.add_value("--sign-key", &opt->sign_key, "the PMG's Ed25519 secret key file (64 bytes)");
  cli.add_value("--epoch", &epoch, "the mask's epoch, >= 1; higher than any earlier one");
  cli.add_value("--out-dir", &opt->out_dir, "where to write party-<j>.p2bq");
  const ParseOutcome parsed = cli.parse(argc, argv, message);
  if (parsed != ParseOutcome::ok) return parsed;
  if (!parse_partition(partition, &opt->partition) || opt->partition.size() < 2) {
    return p2b::common::usage_error(
        message, p2b::common::bad_value("--partition", "two or more block sizes", partition));
  }
  uint64_t d = 0;
  for (const uint32_t dj : opt->partition) d += dj;
  if (vfl::check_partition(opt->partition, static_cast<uint32_t>(d)) != vfl::PartitionCheck::ok) {
    return p2b::common::usage_error(
        message, p2b::common::bad_value("--partition", "sizes summing to 2..4096", partition));
  }
  if (opt->party_keys.size() != opt->partition.size()) {
    return p2b::common::usage_error(message,
                                    "--party-key must be given once per block of "
                                    "--partition (" +
                                        std::to_string(opt->partition.size()) + ")");
  }
  if (!p2b::common::parse_count(epoch, 1, UINT64_MAX, &opt->epoch)) {
    return p2b::common::usage_error(message,
                                    p2b::common::bad_value("--epoch", "an integer >= 1", epoch));
  }
  if (opt->sign_key.empty() || opt->out_dir.empty()) {
    return p2b::common::usage_error(message, "--sign-key and --out-dir are required");
  }
  return ParseOutcome::ok;
}

// The secrets of one run, wiped on every way out.
struct Secrets {
  uint8_t seed[vfl::kMaskSeedBytes]{};
  uint8_t sign_sk[crypto_sign_SECRETKEYBYTES]{};
  vfl::Mask mask;
  Secrets() = default;
  Secrets(const Secrets&) = delete;
  Secrets& operator=(const Secrets&) = delete;
  ~Secrets() {
    sodium_memzero(seed, sizeof seed);
    sodium_memzero(sign_sk, sizeof sign_sk);
    if (!mask.q.empty()) sodium_memzero(mask.q.data(), mask.q.size() * sizeof(double));
  }
};

int fail(const std::string& why) {
  std::fprintf(stderr, "p2b-vfl-pmg: %s\n", why.c_str());
  return p2b::common::kExitFailure;
}

int run(const Options& opt) {
  if (sodium_init() < 0) return fail("libsodium failed to start");
  Secrets s;
  std::string err, warning;
  if (!kf::read_secret_key_file(opt.sign_key, s.sign_sk, sizeof s.sign_sk, &err, &warning)) {
    return fail(err);
  }
  if (!warning.empty()) std::fprintf(stderr, "p2b-vfl-pmg: warning: %s\n", warning.c_str());
  std::vector<std::vector<uint8_t>> party_pk(opt.party_keys.size());
  for (std::size_t j = 0; j < opt.party_keys.size(); ++j) {
    party_pk[j].resize(crypto_box_PUBLICKEYBYTES);
    if (!kf::read_key_file(opt.party_keys[j], party_pk[j].data(), party_pk[j].size(), &err)) {
      return fail(err);
    }
  }
  uint32_t d = 0;
  for (const uint32_t dj : opt.partition) d += dj;
  // A fresh seed for every run: the mask must not be reproducible by anyone.
  randombytes_buf(s.seed, sizeof s.seed);
  if (vfl::draw_mask(s.seed, d, opt.epoch, &s.mask) != vfl::MaskStatus::ok) {
    return fail("the drawn mask failed its check; run again");
  }
  sodium_memzero(s.seed, sizeof s.seed);
  const auto created = static_cast<uint64_t>(std::time(nullptr));
  std::vector<std::string> lines;
  std::vector<kf::StagedKey> staged;
  auto discard = [&staged] {
    for (const kf::StagedKey& k : staged) kf::discard_staged_key(k);
  };
  for (uint32_t j = 0; j < opt.partition.size(); ++j) {
    std::vector<uint8_t> sealed;
    if (!vfl::seal_mask_bundle(s.mask, opt.partition, j, created, s.sign_sk, party_pk[j].data(),
                               &sealed, &err)) {
      discard();
      return fail("party " + std::to_string(j) + ": " + err);
    }
    const std::string path = opt.out_dir + "/party-" + std::to_string(j) + ".p2bq";
    kf::StagedKey k;
    if (!kf::stage_key_file(path, sealed.data(), sealed.size(), kf::KeyKind::secret_key, &k,
                            &err)) {
      discard();
      return fail(err);
    }
    staged.push_back(k);
    std::string fp;
    kf::fingerprint_hex(party_pk[j].data(), &fp);
    std::string line = "party " + std::to_string(j);
    line += "  d_j " + std::to_string(opt.partition[j]);
    line += "  key fingerprint " + fp;
    line += "  " + path;
    line += "  " + std::to_string(sealed.size()) + " bytes";
    lines.push_back(line);
  }
  // Every bundle is written before any replaces an older one.
  for (std::size_t i = 0; i < staged.size(); ++i) {
    if (!kf::commit_staged_key(staged[i], &err)) {
      for (std::size_t r = i; r < staged.size(); ++r) kf::discard_staged_key(staged[r]);
      return fail(err);
    }
  }
  if (!kf::sync_directory(opt.out_dir, &err)) return fail(err);
  std::string signer_fp;
  kf::fingerprint_hex(s.sign_sk + 32, &signer_fp);
  std::printf("mask_id %s  epoch %llu  d %u  parties %zu\n",
              vfl::hex_of(s.mask.mask_id, vfl::kMaskIdBytes).c_str(),
              static_cast<unsigned long long>(opt.epoch), d, opt.partition.size());
  std::printf("pmg sign key fingerprint %s\n", signer_fp.c_str());
  for (const std::string& l : lines) std::printf("%s\n", l.c_str());
  return p2b::common::kExitClean;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options opt;
    std::string message;
    const ParseOutcome parsed = parse_args(argc, argv, &opt, &message);
    if (parsed != ParseOutcome::ok) {
      return p2b::common::report_parse_outcome("p2b-vfl-pmg", parsed, message);
    }
    return run(opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "p2b-vfl-pmg: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "p2b-vfl-pmg: failed\n");
  }
  return p2b::common::kExitFailure;
}
