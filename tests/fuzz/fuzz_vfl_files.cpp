// The files a vertical-federation service reads at start and on reload: a
// party's feature CSV (FeatureTable::load) and the service state file
// (read_state). Mode (first byte % 2): 0 the rest is a feature file of
// width 3, 1 the rest is a state file. The bytes go to a file of this
// process's own, as the services read paths.
// Beyond "no crash": an accepted state file writes back and reads again to
// the same values; an accepted feature file answers every lookup with a
// known status and, for a row it holds, exactly `width` finite values.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "fuzz_fixture.hpp"
#include "vfl/features_file.hpp"
#include "vfl/state_file.hpp"

namespace {

const std::string& scratch_path() {
  static const std::string path =
      "/tmp/p2b-fuzz-vfl-files-" + std::to_string(static_cast<long>(getpid()));
  return path;
}

void write_file(const std::string& path, const uint8_t* p, size_t n) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(p), static_cast<std::streamsize>(n));
  p2b_fuzz::require(f.good(), "writing the scratch file");
}

void check_state(const std::string& path) {
  p2b::vfl::ServiceState st;
  bool existed = false;
  std::string err;
  if (!p2b::vfl::read_state(path, &st, &existed, &err)) return;
  p2b_fuzz::require(existed, "an accepted state file must exist");
  const std::string copy = path + ".copy";
  p2b_fuzz::require(p2b::vfl::write_state(copy, st, &err), "writing an accepted state back");
  p2b::vfl::ServiceState again;
  p2b_fuzz::require(p2b::vfl::read_state(copy, &again, &existed, &err) &&
                        again.round_id == st.round_id && again.mask_epoch == st.mask_epoch,
                    "a state file did not read back the same");
  std::remove(copy.c_str());
}

void check_features(const std::string& path) {
  p2b::vfl::FeatureTable table;
  std::string err;
  if (!table.load(path, 3, 1000, &err)) return;
  p2b_fuzz::require(table.width() == 3, "width");
  p2b::vfl::UserToken user{};
  const uint32_t items[2] = {0, 1};
  std::vector<double> out;
  const p2b::vfl::LookupStatus st = table.lookup(user, items, 2, &out);
  if (st == p2b::vfl::LookupStatus::ok) {
    const size_t rows = table.user_only() ? 1 : 2;
    p2b_fuzz::require(out.size() == rows * 3, "lookup size");
    for (const double v : out) p2b_fuzz::require(std::isfinite(v), "a non-finite feature");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  p2b_fuzz::Input in{};
  if (!p2b_fuzz::split_mode(data, size, 2, &in)) return 0;
  const std::string& path = scratch_path();
  write_file(path, in.data, in.size);
  if (in.mode == 0) {
    check_features(path);
  } else {
    check_state(path);
  }
  return 0;
}
