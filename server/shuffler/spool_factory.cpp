#include "shuffler/spool_factory.hpp"

#include <filesystem>

#include "shuffler/pg_spool.hpp"
#include "shuffler/sqlite_spool.hpp"

namespace p2b::shuffler {

OpenedSpool open_spool(const SpoolOptions& options) {
  OpenedSpool opened;
  if (options.postgresql) {
    PgSpoolOptions pg;
    pg.partitions = options.partitions;
    pg.lease_ttl = options.lease_ttl;
    pg.must_exist = options.must_exist;
    pg.statement_timeout = options.statement_timeout;
    auto spool = std::make_unique<PgSpool>(options.target, pg);
    PgSpool* raw = spool.get();
    opened.storage_check = [raw] { return raw->storage_check(); };
    opened.spool = std::move(spool);
  } else {
    if (options.must_exist && !std::filesystem::exists(options.target)) {
      throw SpoolError("spool: " + options.target + " does not exist");
    }
    auto spool =
        std::make_unique<SqliteSpool>(options.target, options.sqlite_key, options.sqlite_partition);
    const common::StoreHealth* health = spool->health();
    opened.storage_check = [health] { return health->check(); };
    opened.spool = std::move(spool);
  }
  return opened;
}

}  // namespace p2b::shuffler
