// p2b-keygen: makes the four key pairs of a deployment as raw files
// (docs/keys.md) and prints each public key's fingerprint. Every refusal is
// decided before the first byte is written, so a refused or failed run leaves
// the key directory as it found it.
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/command_line.hpp"
#include "common/exit_codes.hpp"
#include "common/keyfiles.hpp"
#include "keygen/key_sets.hpp"
#include "p2b/crypto.hpp"
#include "pfcb/wire/pfcb_wire.hpp"

namespace {

namespace kf = p2b::keyfiles;

using p2b::common::kExitClean;
using p2b::common::kExitFailure;
using p2b::common::ParseOutcome;

constexpr char kSynopsis[] =
    "usage: p2b-keygen --out DIR [--force] [--vfl | --fclub | --fclub-local | --pfcb-consortium "
    "| --pfcb-agent | --shuffler-spool]";
constexpr char kDescription[] =
    "Writes the shuffler's X25519 box key pair, the analyzer's X25519 box key\n"
    "pair and the Ed25519 signing key pairs of the analyzer (models, acks) and\n"
    "the shuffler (batches) as raw files in DIR, then prints the fingerprint of\n"
    "each public key. A missing DIR is created 0700.\n"
    "With --vfl it writes a vertical-federation party's key files instead\n"
    "(docs/vertical-services.md): the X25519 pair vfl.box.{pk,sk} every party\n"
    "and the active party use, and the Ed25519 pair vfl.sign.{pk,sk} the mask\n"
    "generator signs with.\n"
    "With --fclub it writes an FCLUB global server's fclub.box.{pk,sk} and\n"
    "fclub.sign.{pk,sk} (docs/fclub-services.md); --fclub-local adds the\n"
    "32-byte secret fclub.noise.sk, the local server's tree-noise seed.\n"
    "With --pfcb-consortium it writes a P-FCB consortium's 32-byte\n"
    "XChaCha20-Poly1305 key pfcb.consortium.key (0600; every agent holds it,\n"
    "the relay never does) and prints its fingerprint, the relay's\n"
    "--consortium-fp. With --pfcb-agent it writes an agent's Ed25519 pair\n"
    "pfcb.sign.{pk,sk} and prints the fingerprint and the members-file line\n"
    "of its verify key (docs/pfcb-relay.md).\n"
    "With --shuffler-spool it writes the 32-byte secret shuffler.spool.key\n"
    "(0600), the key the shuffler's SQLite spool is sealed under (--spool-key);\n"
    "keep it outside the spool's directory (docs/operations.md).\n";

static_assert(crypto_box_PUBLICKEYBYTES == p2b::kPublicKeyBytes, "X25519 key size");
static_assert(crypto_sign_PUBLICKEYBYTES == p2b::kPublicKeyBytes, "Ed25519 key size");

struct Options {
  std::string out_dir;
  bool force = false;
  bool vfl = false;
  bool fclub = false;            // an FCLUB global server's keys
  bool fclub_local = false;      // an FCLUB local server's: the same and a noise seed
  bool pfcb_consortium = false;  // a P-FCB consortium's AEAD key
  bool pfcb_agent = false;       // a P-FCB agent's signing pair
  bool shuffler_spool = false;   // the shuffler's spool key
};

ParseOutcome parse_args(int argc, char** argv, Options* opt, std::string* message) {
  p2b::common::CommandLine cli("p2b-keygen", kSynopsis, kDescription, false);
  cli.add_value("--out", &opt->out_dir, "where to write the eight key files");
  cli.app().add_flag("--force", opt->force,
                     "replace existing key files (without it: refuse, write nothing)");
  cli.app().add_flag("--vfl", opt->vfl,
                     "write vfl.box.{pk,sk} and vfl.sign.{pk,sk} (vertical federation) instead");
  cli.app().add_flag("--fclub", opt->fclub,
                     "write fclub.box.{pk,sk} and fclub.sign.{pk,sk} (an FCLUB global server)");
  cli.app().add_flag("--fclub-local", opt->fclub_local,
                     "the same and fclub.noise.sk (an FCLUB local server's noise seed)");
  cli.app().add_flag("--pfcb-consortium", opt->pfcb_consortium,
                     "write pfcb.consortium.key, a P-FCB consortium's AEAD key, instead");
  cli.app().add_flag("--pfcb-agent", opt->pfcb_agent,
                     "write pfcb.sign.{pk,sk}, a P-FCB agent's signing pair, instead");
  cli.app().add_flag("--shuffler-spool", opt->shuffler_spool,
                     "write shuffler.spool.key, the shuffler's SQLite spool key, instead");
  const ParseOutcome parsed = cli.parse(argc, argv, message);
  if (parsed == ParseOutcome::ok && opt->out_dir.empty()) {
    *message = "--out DIR is required";
    return ParseOutcome::usage_error;
  }
  if (parsed == ParseOutcome::ok && int{opt->vfl} + int{opt->fclub} + int{opt->fclub_local} +
                                            int{opt->pfcb_consortium} + int{opt->pfcb_agent} +
                                            int{opt->shuffler_spool} >
                                        1) {
    *message =
        "give at most one of --vfl, --fclub, --fclub-local, --pfcb-consortium, --pfcb-agent and "
        "--shuffler-spool";
    return ParseOutcome::usage_error;
  }
  return parsed;
}

using p2b::keygen::KeyFile;
using p2b::keygen::KeyFiles;
using p2b::keygen::KeySet;
using p2b::keygen::KeySetKind;

KeySetKind kind_of(const Options& opt) {
  if (opt.shuffler_spool) return KeySetKind::shuffler_spool;
  if (opt.pfcb_consortium) return KeySetKind::pfcb_consortium;
  if (opt.pfcb_agent) return KeySetKind::pfcb_agent;
  if (opt.fclub_local) return KeySetKind::fclub_local;
  if (opt.fclub) return KeySetKind::fclub;
  if (opt.vfl) return KeySetKind::vfl;
  return KeySetKind::p2b;
}

void add_line(std::string* text, const std::string& line) {
  if (!text->empty()) *text += '\n';
  *text += line;
}

std::string join(const std::string& dir, const char* name) {
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

// Without --force any existing target is refused. With it, only regular files
// may be replaced: a rename over a directory would fail halfway through the
// set, and one over a symlink would silently replace the link, not its target.
bool check_targets(const std::string& dir, const KeyFiles& files, bool force, std::string* err) {
  for (const KeyFile& f : files) {
    const std::string path = join(dir, f.name);
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) continue;
      add_line(err, path + ": " + std::strerror(errno));
    } else if (!force) {
      add_line(err, "refusing to overwrite existing key file " + path + " (--force replaces it)");
    } else if (!S_ISREG(st.st_mode)) {
      add_line(err, path + ": exists and is not a regular file; not replacing it");
    }
  }
  if (err->empty()) return true;
  add_line(err, "no key files were written");
  return false;
}

// mkdir -p. Directories it makes are 0700 because they are about to hold
// secret keys; directories that already exist are left as they are.
bool make_dirs(const std::string& dir, std::string* err) {
  for (std::size_t end = dir.find('/', 1);; end = dir.find('/', end + 1)) {
    const std::string prefix = dir.substr(0, end);
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) {
      *err = prefix + ": cannot create directory: " + std::strerror(errno);
      return false;
    }
    if (end == std::string::npos) break;
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    *err = dir + ": not a directory";
    return false;
  }
  return true;
}

// On failure, deletes what this run created, so that a plain re-run (without
// --force) can succeed.
bool create_all(const std::string& dir, const KeyFiles& files, std::string* err) {
  std::size_t done = 0;
  while (done < files.size() && kf::create_key_file(join(dir, files[done].name), files[done].bytes,
                                                    files[done].size, files[done].kind, err)) {
    ++done;
  }
  if (done == files.size()) return true;
  for (std::size_t i = 0; i < done; ++i) ::unlink(join(dir, files[i].name).c_str());
  add_line(err, "no key files were written");
  return false;
}

// Stages all the files before renaming any, so a full disk cannot leave a
// new public key next to the old secret key of the same pair.
bool replace_all(const std::string& dir, const KeyFiles& files, std::string* err) {
  std::vector<kf::StagedKey> staged(files.size());
  std::size_t n = 0;
  while (n < files.size() && kf::stage_key_file(join(dir, files[n].name), files[n].bytes,
                                                files[n].size, files[n].kind, &staged[n], err)) {
    ++n;
  }
  std::size_t committed = 0;
  while (n == files.size() && committed < n && kf::commit_staged_key(staged[committed], err)) {
    ++committed;
  }
  for (std::size_t i = committed; i < n; ++i) kf::discard_staged_key(staged[i]);
  if (committed == files.size()) return true;
  add_line(err, std::to_string(committed) + " of " + std::to_string(files.size()) +
                    " key files were replaced");
  return false;
}

bool fingerprint_lines(const KeyFiles& files, const Options& opt, std::string* out,
                       std::string* err) {
  for (const KeyFile& f : files) {
    if (opt.pfcb_consortium) {
      // A secret key's fingerprint is keyed (pfcb_wire.hpp): it names the
      // key without being a plain hash of it.
      uint8_t fp[p2b::pfcb::kFpBytes];
      char hex[2 * sizeof fp + 1];
      if (!p2b::pfcb::consortium_fingerprint(f.bytes, fp)) {
        *err = "cannot compute the consortium fingerprint";
        return false;
      }
      sodium_bin2hex(hex, sizeof hex, fp, sizeof fp);
      *out += std::string(f.name) + "  fingerprint " + hex + "\n";
      continue;
    }
    if (f.kind != kf::KeyKind::public_key) continue;
    if (opt.pfcb_agent) {
      // The line to add to the relay's and the agents' members file.
      char hex[2 * crypto_sign_PUBLICKEYBYTES + 1];
      sodium_bin2hex(hex, sizeof hex, f.bytes, f.size);
      *out += std::string(f.name) + "  member " + hex + "\n";
    }
    std::string hex;
    if (!kf::fingerprint_hex(f.bytes, &hex)) {
      *err = "cannot compute the fingerprint of " + std::string(f.name);
      return false;
    }
    *out += std::string(f.name) + "  fingerprint " + hex + "\n";
  }
  return true;
}

// One "p2b-keygen: " prefix per line, so each line stands alone in a log.
int fail(const std::string& err) {
  for (std::size_t start = 0; start < err.size();) {
    const std::size_t end = std::min(err.find('\n', start), err.size());
    std::fprintf(stderr, "p2b-keygen: %s\n", err.substr(start, end - start).c_str());
    start = end + 1;
  }
  return kExitFailure;
}

int run(const Options& opt) {
  if (sodium_init() < 0) return fail("libsodium failed to initialise");
  KeySet keys;
  const KeyFiles files = p2b::keygen::key_files(keys, kind_of(opt));
  std::string err;
  if (!check_targets(opt.out_dir, files, opt.force, &err) || !make_dirs(opt.out_dir, &err)) {
    return fail(err);
  }
  p2b::keygen::generate(&keys);
  std::string fingerprints;
  if (!fingerprint_lines(files, opt, &fingerprints, &err)) return fail(err);
  const bool written =
      opt.force ? replace_all(opt.out_dir, files, &err) : create_all(opt.out_dir, files, &err);
  keys.wipe();
  if (!written || !kf::sync_directory(opt.out_dir, &err)) return fail(err);
  std::printf("wrote %zu key files to %s\n%s", files.size(), opt.out_dir.c_str(),
              fingerprints.c_str());
  return kExitClean;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  std::string message;
  const ParseOutcome parsed = parse_args(argc, argv, &opt, &message);
  if (parsed != ParseOutcome::ok) {
    return p2b::common::report_parse_outcome("p2b-keygen", parsed, message);
  }
  return run(opt);
}
