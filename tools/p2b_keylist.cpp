// p2b-keylist: makes and shows signed shuffler-key lists (docs/keys.md,
// docs/formats.md). A list names the shuffler X25519 key devices seal new
// envelopes to and the older keys the shuffler still accepts; the analyzer's
// model-signing key signs it, and devices apply it with
// p2b_agent_apply_key_list. The secret key is read, used and wiped; only
// fingerprints are printed.
#include <sodium.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "common/command_line.hpp"
#include "common/exit_codes.hpp"
#include "common/keyfiles.hpp"
#include "common/option_values.hpp"
#include "p2b/key_list.hpp"

namespace {

namespace kf = p2b::keyfiles;

using p2b::common::kExitClean;
using p2b::common::kExitFailure;
using p2b::common::ParseOutcome;

constexpr char kSynopsis[] =
    "usage: p2b-keylist --sign-key analyzer.sign.sk --list-version N --current shuffler.box.pk\n"
    "                   [--accept OLD.box.pk ...] [--not-after UNIX] [--created UNIX]\n"
    "                   --out FILE [--force]\n"
    "       p2b-keylist --show FILE --verify-key analyzer.sign.pk";
constexpr char kDescription[] =
    "Writes a signed shuffler-key list: the key devices seal new envelopes to\n"
    "(--current) and up to three older keys the shuffler still accepts\n"
    "(--accept), signed with the analyzer's model-signing key, which devices\n"
    "pin. The version must grow with every list: devices refuse any list not\n"
    "newer than the one they applied. --show verifies a list and prints it.";

struct Options {
  std::string sign_key, current, out, show, verify_key;
  std::vector<std::string> accept;
  uint64_t version = 0;
  uint64_t created_unix = 0;
  uint64_t not_after_unix = 0;  // 0: none
  bool force = false;
};

// Decimal digits in [lo, UINT64_MAX], or a usage error naming the option.
bool number(const std::string& name, const std::string& text, uint64_t lo, const char* what,
            uint64_t* out, std::string* message) {
  if (p2b::common::parse_count(text, lo, UINT64_MAX, out)) return true;
  *message = p2b::common::bad_value(name, what, text);
  return false;
}

ParseOutcome parse_args(int argc, char** argv, Options* o, std::string* message) {
  p2b::common::CommandLine cli("p2b-keylist", kSynopsis, kDescription, false);
  std::string version, created, not_after;
  cli.add_value("--sign-key", &o->sign_key, "the analyzer's Ed25519 secret key (analyzer.sign.sk)");
  cli.add_value("--list-version", &version,
                "the list's version, 1 or more, above every earlier one");
  cli.add_value("--current", &o->current, "the shuffler X25519 public key new envelopes use");
  cli.app()
      .add_option("--accept", o->accept, "an older shuffler public key still accepted (repeatable)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cli.add_value("--not-after", &not_after, "last Unix second devices may apply it (default: none)");
  cli.add_value("--created", &created, "creation time in Unix seconds (default: now)");
  cli.add_value("--out", &o->out, "where to write the list");
  cli.app().add_flag("--force", o->force, "replace an existing --out file");
  cli.add_value("--show", &o->show, "verify and print this list instead");
  cli.add_value("--verify-key", &o->verify_key, "with --show: the analyzer.sign.pk devices pin");
  const ParseOutcome parsed = cli.parse(argc, argv, message);
  if (parsed != ParseOutcome::ok) return parsed;
  using p2b::common::usage_error;
  if (!o->show.empty()) {
    if (o->verify_key.empty()) return usage_error(message, "--show needs --verify-key");
    if (!o->sign_key.empty() || !o->out.empty()) {
      return usage_error(message, "--show takes no --sign-key or --out");
    }
    return ParseOutcome::ok;
  }
  if (o->sign_key.empty() || version.empty() || o->current.empty() || o->out.empty()) {
    return usage_error(message, "--sign-key, --list-version, --current and --out are required");
  }
  o->created_unix = static_cast<uint64_t>(std::time(nullptr));
  if (!number("list-version", version, 1, "an integer of 1 or more", &o->version, message) ||
      (!created.empty() &&
       !number("created", created, 0, "Unix seconds", &o->created_unix, message)) ||
      (!not_after.empty() &&
       !number("not-after", not_after, 0, "Unix seconds", &o->not_after_unix, message))) {
    return ParseOutcome::usage_error;
  }
  if (o->not_after_unix != 0 && o->not_after_unix < o->created_unix) {
    return usage_error(message, "--not-after is before the creation time");
  }
  if (o->accept.size() + 1 > p2b::kKeyListMaxKeys) {
    return usage_error(message,
                       "at most " + std::to_string(p2b::kKeyListMaxKeys - 1) + " --accept keys");
  }
  return ParseOutcome::ok;
}

int fail(const std::string& err) {
  std::fprintf(stderr, "p2b-keylist: %s\n", err.c_str());
  return kExitFailure;
}

std::string hex_fingerprint(const uint8_t* pk) {
  std::string hex;
  return kf::fingerprint_hex(pk, &hex) ? hex : std::string("?");
}

std::string to_hex(const uint8_t* p, std::size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (std::size_t i = 0; i < n; ++i) {
    hex += kDigits[p[i] >> 4];
    hex += kDigits[p[i] & 15];
  }
  return hex;
}

// The list's fields from the options and key files; false with a message.
bool fields_from(const Options& o, p2b::KeyList* l, std::string* message) {
  l->version = o.version;
  l->created_unix = o.created_unix;
  l->not_after_unix = o.not_after_unix;
  std::vector<std::string> files{o.current};
  files.insert(files.end(), o.accept.begin(), o.accept.end());
  l->count = static_cast<uint32_t>(files.size());
  l->current = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (!kf::read_key_file(files[i], l->keys[i], p2b::kPublicKeyBytes, message)) return false;
    for (std::size_t j = 0; j < i; ++j) {
      if (std::memcmp(l->keys[i], l->keys[j], p2b::kPublicKeyBytes) == 0) {
        *message = files[i] + ": the same key as " + files[j];
        return false;
      }
    }
  }
  return true;
}

// Signs the list with the secret key file, which is wiped before returning.
bool sign(const std::string& sk_path, p2b::KeyList* l, uint8_t* out, std::string* message) {
  uint8_t sk[crypto_sign_SECRETKEYBYTES];
  std::string warning;
  if (!kf::read_secret_key_file(sk_path, sk, sizeof sk, message, &warning)) return false;
  if (!warning.empty()) std::fprintf(stderr, "p2b-keylist: warning: %s\n", warning.c_str());
  uint8_t pk[crypto_sign_PUBLICKEYBYTES];
  crypto_sign_ed25519_sk_to_pk(pk, sk);
  crypto_generichash(l->signer_fp, sizeof l->signer_fp, pk, sizeof pk, nullptr, 0);
  const bool encoded = p2b::encode_key_list(*l, out) == p2b::Status::ok;
  if (encoded) {
    crypto_sign_detached(out + p2b::kKeyListSignedBytes, nullptr, out, p2b::kKeyListSignedBytes,
                         sk);
  }
  sodium_memzero(sk, sizeof sk);
  if (!encoded) *message = "the keys do not make a valid list (an all-zero key?)";
  return encoded;
}

// A list is public: written like a public key file (0644, fsynced), and
// with --force swapped in whole by a rename.
bool write_list(const std::string& path, const uint8_t* list, bool force, std::string* message) {
  if (!force) {
    if (kf::create_key_file(path, list, p2b::kKeyListBytes, kf::KeyKind::public_key, message)) {
      return true;
    }
    *message += " (--force replaces an existing file)";
    return false;
  }
  kf::StagedKey staged;
  if (!kf::stage_key_file(path, list, p2b::kKeyListBytes, kf::KeyKind::public_key, &staged,
                          message)) {
    return false;
  }
  if (kf::commit_staged_key(staged, message)) return true;
  kf::discard_staged_key(staged);
  return false;
}

void print_list(const p2b::KeyList& l) {
  std::printf("version     %" PRIu64 "\n", l.version);
  std::printf("created     %" PRIu64 "\n", l.created_unix);
  if (l.not_after_unix == 0) {
    std::printf("not after   none\n");
  } else {
    std::printf("not after   %" PRIu64 "\n", l.not_after_unix);
  }
  std::printf("signer      fingerprint %s\n", to_hex(l.signer_fp, sizeof l.signer_fp).c_str());
  std::printf("current     fingerprint %s\n", hex_fingerprint(l.keys[l.current]).c_str());
  for (uint32_t i = 0; i < l.count; ++i) {
    if (i != l.current) {
      std::printf("accepted    fingerprint %s\n", hex_fingerprint(l.keys[i]).c_str());
    }
  }
}

int make(const Options& o) {
  p2b::KeyList l{};
  std::string message;
  uint8_t list[p2b::kKeyListBytes];
  if (!fields_from(o, &l, &message) || !sign(o.sign_key, &l, list, &message) ||
      !write_list(o.out, list, o.force, &message)) {
    return fail(message);
  }
  std::printf("wrote key list to %s\n", o.out.c_str());
  print_list(l);
  return kExitClean;
}

int show(const Options& o) {
  uint8_t list[p2b::kKeyListBytes];
  uint8_t pk[crypto_sign_PUBLICKEYBYTES];
  std::string message;
  if (!kf::read_key_file(o.show, list, sizeof list, &message) ||
      !kf::read_key_file(o.verify_key, pk, sizeof pk, &message)) {
    return fail(message);
  }
  if (crypto_sign_verify_detached(list + p2b::kKeyListSignedBytes, list, p2b::kKeyListSignedBytes,
                                  pk) != 0) {
    return fail(o.show + ": the signature does not verify with " + o.verify_key);
  }
  p2b::KeyList l{};
  const p2b::Status st = p2b::parse_key_list(list, sizeof list, &l);
  if (st != p2b::Status::ok) return fail(o.show + ": " + p2b::status_str(st));
  uint8_t signer_fp[p2b::kFingerprintBytes];
  crypto_generichash(signer_fp, sizeof signer_fp, pk, sizeof pk, nullptr, 0);
  if (std::memcmp(signer_fp, l.signer_fp, sizeof signer_fp) != 0) {
    return fail(o.show + ": names another signer than " + o.verify_key);
  }
  print_list(l);
  return kExitClean;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  std::string message;
  const ParseOutcome parsed = parse_args(argc, argv, &opt, &message);
  if (parsed != ParseOutcome::ok) {
    return p2b::common::report_parse_outcome("p2b-keylist", parsed, message);
  }
  if (sodium_init() < 0) return fail("libsodium failed to initialise");
  return opt.show.empty() ? make(opt) : show(opt);
}
