// The libpq layer in one include: connections bounded in time, binary
// parameters and results, transactions that roll back unless committed,
// versioned migrations, and conninfo strings safe to log.
#pragma once

#include "common/pg/connection.hpp"
#include "common/pg/conninfo.hpp"
#include "common/pg/error.hpp"
#include "common/pg/migrate.hpp"
#include "common/pg/params.hpp"
#include "common/pg/result.hpp"
#include "common/pg/retry.hpp"
#include "common/pg/transaction.hpp"
