// p2b-demo's settings: the fixed shape of the experiment (the paper's d,
// |A|, t and p) and the options its command line takes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace p2b::demo {

constexpr uint32_t kDim = 10;
constexpr uint32_t kActions = 10;
constexpr uint32_t kWindow = 10;
constexpr double kParticipation = 0.5;
constexpr std::size_t kEnvelopesPerPost = 256;
constexpr std::size_t kRawPerPost = 4096;
constexpr int kPgPartitions = 4;

struct Options {
  uint32_t users = 50000;  // early (sharing) users; the late cohort is 3/7 of it
  uint32_t threshold = 10;
  uint32_t codes = 1024;
  uint64_t seed = 1;
  std::string out = "out/demo";
  // "sqlite", "postgresql" (a throwaway cluster) or a postgresql:// URL.
  std::string store = "sqlite";
  // The analyzers' --central-epsilon. Off by default: the demo measures what
  // P2B's own mechanism (participation and crowd thresholds) costs, as the
  // paper does (docs/demo.md); deployments ship with it on.
  std::string central_epsilon = "off";
  bool on_postgresql() const { return store != "sqlite"; }
  // The server to use, empty for a throwaway cluster.
  std::string pg_server() const { return store == "postgresql" ? "" : store; }
};

// Returns -1 to go on, else the exit status (0 after --help or --version, 2
// on bad usage).
int parse_options(int argc, char** argv, Options* o);

}  // namespace p2b::demo
