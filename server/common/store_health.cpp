#include "common/store_health.hpp"

#include <sqlite3.h>

#include "common/json_log.hpp"
#include "common/prometheus_text.hpp"

namespace p2b::common {

bool is_damage_code(int sqlite_code) {
  const int primary = sqlite_code & 0xff;
  return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB || primary == SQLITE_IOERR;
}

void StoreHealth::record_error(bool damage, const std::string& what) {
  errors_.fetch_add(1);
  if (!damage) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (failed_.load()) return;
    reason_ = what;
    failed_.store(true);
  }
  if (log_.load()) service_log().error("store_failed", {{"store", path_}, {"error", what}});
}

std::string StoreHealth::reason() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reason_;
}

CheckResult StoreHealth::check() const {
  if (failed()) return check_failed(path_ + ": " + reason() + "; restart to re-check the store");
  return check_ok();
}

void StoreHealth::render(PrometheusText& out, const std::string& prefix) const {
  out.counter(prefix + "_store_errors_total", "Store operations that failed since start.",
              errors());
  out.gauge(prefix + "_store_failed",
            "1 once the store met corruption or an I/O error; refused until a restart.",
            failed() ? 1 : 0);
}

}  // namespace p2b::common
