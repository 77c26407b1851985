#include "publication_timing.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "analyzer/pg_store.hpp"
#include "analyzer/statistics.hpp"
#include "common/pg/connection.hpp"
#include "common/secret_keys.hpp"
#include "wire/model_bundle.hpp"

namespace p2b::bench {

namespace {

using Clock = std::chrono::steady_clock;
using analyzer::ModelKind;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// The identity the workers bound the store to, read back so that opening
// it here is not refused.
analyzer::StoreIdentity stored_identity(pg::Connection& conn) {
  analyzer::StoreIdentity id;
  const pg::Result rows = conn.query("SELECT key, value FROM analyzer_meta");
  for (int i = 0; i < rows.rows(); ++i) {
    const std::string key = rows.text(i, 0);
    const std::string value = rows.text(i, 1);
    if (key == "dim") id.dim = static_cast<uint32_t>(std::stoul(value));
    if (key == "n_actions") id.n_actions = static_cast<uint32_t>(std::stoul(value));
    if (key == "mode") id.mode = value;
    if (key == "codebook_fp") id.codebook_fp_hex = value;
  }
  return id;
}

uint64_t accumulated(pg::Connection& conn) {
  return static_cast<uint64_t>(
      conn.query("SELECT coalesce(sum(count), 0)::int8 FROM accumulators WHERE kind = 0")
          .int8(0, 0));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

nlohmann::ordered_json time_publications(const std::string& conninfo,
                                         const std::string& sign_sk_file,
                                         const std::vector<double>& reports, int repeats) {
  pg::Connection conn(conninfo);
  const analyzer::StoreIdentity id = stored_identity(conn);
  const int rows = static_cast<int>(
      conn.query("SELECT count(*)::int8 FROM accumulators WHERE kind = 0").int8(0, 0));
  if (rows == 0) throw std::runtime_error("no accumulator rows: the workers applied nothing");
  std::vector<std::string> warnings;
  const common::SecureArray<uint8_t> sk = common::load_sign_key(sign_sk_file, &warnings);
  analyzer::PgAnalyzerStore store(conninfo, id);
  if (!store.try_lead()) throw std::runtime_error("another publisher holds the lead");

  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const double target : reports) {
    if (target <= 0) continue;
    const uint64_t have = accumulated(conn);
    const auto want = static_cast<uint64_t>(target);
    if (want > have) {
      conn.exec("UPDATE accumulators SET count = count + " + std::to_string(want - have) +
                " WHERE ctid = (SELECT ctid FROM accumulators WHERE kind = 0 LIMIT 1)");
    }
    std::vector<double> sum_ms, sign_ms, store_ms, total_ms;
    for (int r = 0; r < repeats; ++r) {
      const auto head = store.latest_model(ModelKind::private_reports, 0, nullptr);
      const auto t0 = Clock::now();
      const analyzer::Statistics stats =
          store.sum_shards(ModelKind::private_reports, id.dim, id.n_actions);
      const auto t1 = Clock::now();
      server::ModelSpec spec;
      spec.dim = stats.dim();
      spec.n_actions = stats.n_actions();
      spec.version = (head ? head->model.version : 0) + 1;
      spec.created_unix = 1;
      std::vector<double> a, b;
      stats.model_arrays(spec.ridge_lambda, &a, &b);
      analyzer::SignedModel model;
      model.version = spec.version;
      model.created_unix = spec.created_unix;
      std::string err;
      if (!server::build_model_bundle(spec, a.data(), b.data(), sk.data(), &model.bundle, &err)) {
        throw std::runtime_error("signing failed: " + err);
      }
      const auto t2 = Clock::now();
      store.store_model(ModelKind::private_reports, model, stats.total_count());
      const auto t3 = Clock::now();
      sum_ms.push_back(ms_between(t0, t1));
      sign_ms.push_back(ms_between(t1, t2));
      store_ms.push_back(ms_between(t2, t3));
      total_ms.push_back(ms_between(t0, t3));
    }
    nlohmann::ordered_json one;
    one["accumulated_reports"] = accumulated(conn);
    one["accumulator_rows"] = rows;
    one["repeats"] = repeats;
    one["sum_shards_ms"] = median(sum_ms);
    one["build_and_sign_ms"] = median(sign_ms);
    one["store_ms"] = median(store_ms);
    one["total_ms"] = median(total_ms);
    out.push_back(one);
  }
  return out;
}

}  // namespace p2b::bench
