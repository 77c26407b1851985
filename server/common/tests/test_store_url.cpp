#include "common/store_url.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace {

using p2b::common::parse_store_url;
using p2b::common::redact_password;
using p2b::common::StoreBackend;

TEST(StoreUrl, ABarePathIsSqliteAsBefore) {
  const auto url = parse_store_url("/var/lib/p2b/spool.db");
  EXPECT_EQ(url.backend, StoreBackend::sqlite);
  EXPECT_EQ(url.target, "/var/lib/p2b/spool.db");
  EXPECT_EQ(parse_store_url("spool.db").target, "spool.db");
}

TEST(StoreUrl, TheSqliteSchemeNamesAFile) {
  const auto url = parse_store_url("sqlite:data/spool.db");
  EXPECT_EQ(url.backend, StoreBackend::sqlite);
  EXPECT_EQ(url.target, "data/spool.db");
  EXPECT_EQ(url.describe(), "sqlite:data/spool.db");
}

TEST(StoreUrl, PostgresqlUrlsAreKeptWhole) {
  for (const char* v : {"postgresql://p2b@127.0.0.1:5432/p2b", "postgres://db.internal/p2b"}) {
    const auto url = parse_store_url(v);
    EXPECT_EQ(url.backend, StoreBackend::postgresql) << v;
    EXPECT_EQ(url.target, v);
  }
}

TEST(StoreUrl, RefusesEmptyValuesAndUnknownSchemes) {
  EXPECT_THROW(parse_store_url(""), std::invalid_argument);
  EXPECT_THROW(parse_store_url("sqlite:"), std::invalid_argument);
  EXPECT_THROW(parse_store_url("mysql://u@h/db"), std::invalid_argument);
  EXPECT_THROW(parse_store_url("postgresq://u@h/db"), std::invalid_argument);
}

TEST(StoreUrl, AnUnknownSchemesErrorHidesItsPassword) {
  try {
    parse_store_url("mysql://u:hunter2@h/db");
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).find("hunter2"), std::string::npos) << e.what();
  }
}

TEST(StoreUrl, DescribeNeverShowsAPassword) {
  const auto url = parse_store_url("postgresql://p2b:s3cret@127.0.0.1:5432/p2b?sslmode=require");
  EXPECT_EQ(url.describe(), "postgresql://p2b:***@127.0.0.1:5432/p2b?sslmode=require");
  EXPECT_EQ(redact_password("postgresql://h/db?user=a&password=pw&sslmode=disable"),
            "postgresql://h/db?user=a&password=***&sslmode=disable");
  EXPECT_EQ(redact_password("host=h password=pw dbname=p2b"), "host=h password=*** dbname=p2b");
  // A '@' in the path is not userinfo.
  EXPECT_EQ(redact_password("postgresql://h:5432/db@x"), "postgresql://h:5432/db@x");
  EXPECT_EQ(redact_password("postgresql://u@h/db"), "postgresql://u@h/db");
}

}  // namespace
