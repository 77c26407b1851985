// What a P-FCB peer's durability costs per client call: sealing and opening
// its checkpoint (XChaCha20-Poly1305 over the agent's saved state and the
// waiting postings), and writing it the way PeerClient does (a fsynced
// temporary renamed over the old file, then the directory synced) on the
// disk under $TMPDIR. m = 30 producers, P = 10 peers, two postings of 438
// bytes waiting: 2,972 bytes. Prints figures; asserts nothing.
//
//   pfcb_checkpoint_bench [WRITES]   (default 200)
#include <sodium.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "pfcb/peer_checkpoint.hpp"

namespace {

namespace fs = std::filesystem;
namespace pfcb = p2b::pfcb;
using Clock = std::chrono::steady_clock;

double us_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

}  // namespace

int main(int argc, char** argv) {
  const int writes = argc > 1 ? std::atoi(argv[1]) : 200;
  if (sodium_init() < 0 || writes < 1) return 1;
  pfcb::Checkpoint c;
  c.cursor = 12345;
  c.agent_state.assign(296 + 56 * 30 + 4 * 10, 0x42);  // p2b_cmab_save_size at m = 30, P = 10
  c.postings.push_back({15, std::vector<uint8_t>(438, 0x11)});
  c.postings.push_back({16, std::vector<uint8_t>(438, 0x12)});
  uint8_t key[pfcb::kStateKeyBytes];
  randombytes_buf(key, sizeof key);

  std::vector<uint8_t> file;
  pfcb::Checkpoint back;
  std::string err;
  constexpr int kCodecRounds = 20000;
  auto t0 = Clock::now();
  for (int i = 0; i < kCodecRounds; ++i) pfcb::seal_checkpoint(c, key, &file);
  const double seal_us = us_since(t0) / kCodecRounds;
  t0 = Clock::now();
  for (int i = 0; i < kCodecRounds; ++i)
    pfcb::open_checkpoint(file.data(), file.size(), key, &back, &err);
  const double open_us = us_since(t0) / kCodecRounds;

  const char* tmp = std::getenv("TMPDIR");
  const fs::path dir = fs::path(tmp != nullptr ? tmp : "/tmp") / "p2b-checkpoint-bench";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "agent.ckpt").string();
  std::vector<double> write_us;
  for (int i = 0; i < writes; ++i) {
    c.cursor = static_cast<uint64_t>(i);
    t0 = Clock::now();
    if (!pfcb::write_checkpoint(path, c, key, &err)) {
      std::fprintf(stderr, "write failed: %s\n", err.c_str());
      return 1;
    }
    write_us.push_back(us_since(t0));
  }
  bool exists = false;
  t0 = Clock::now();
  const bool read_ok = pfcb::read_checkpoint(path, key, &back, &exists, &err);
  const double read_us = us_since(t0);
  fs::remove_all(dir);
  if (!read_ok || back.cursor != static_cast<uint64_t>(writes - 1)) return 1;

  std::printf("checkpoint: %zu bytes (m = 30, P = 10, two postings waiting)\n", file.size());
  std::printf("seal %.1f us, open %.1f us (mean of %d)\n", seal_us, open_us, kCodecRounds);
  std::printf(
      "write (fsync file, rename, fsync dir) on %s: median %.0f us, p90 %.0f us, "
      "max %.0f us over %d writes\n",
      dir.parent_path().c_str(), percentile(write_us, 0.5), percentile(write_us, 0.9),
      percentile(write_us, 1.0), writes);
  std::printf("read back %.0f us\n", read_us);
  return 0;
}
