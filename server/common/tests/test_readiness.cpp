#include "common/readiness.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace {

using p2b::common::check_failed;
using p2b::common::check_ok;
using p2b::common::Readiness;

TEST(Readiness, NoChecksIsNotReady) {
  const Readiness r;
  EXPECT_FALSE(Readiness::all_ok(r.run()));
}

TEST(Readiness, ReportsEveryCheckInOrderAndFailsOnAnyFailure) {
  Readiness r;
  bool storage_ok = true;
  r.add("storage", [&] { return storage_ok ? check_ok() : check_failed("disk"); });
  r.add("keys", [] { return check_ok("2 keys"); });
  auto results = r.run();
  ASSERT_EQ(results.size(), 2U);
  EXPECT_EQ(results[0].name, "storage");
  EXPECT_EQ(results[1].result.detail, "2 keys");
  EXPECT_TRUE(Readiness::all_ok(results));
  storage_ok = false;
  results = r.run();
  EXPECT_FALSE(Readiness::all_ok(results));
  EXPECT_EQ(results[0].result.detail, "disk");
}

TEST(Readiness, AThrowingCheckFailsWithItsMessage) {
  Readiness r;
  r.add("batcher", []() -> p2b::common::CheckResult { throw std::runtime_error("stopped"); });
  const auto results = r.run();
  ASSERT_EQ(results.size(), 1U);
  EXPECT_FALSE(results[0].result.ok);
  EXPECT_EQ(results[0].result.detail, "stopped");
}

}  // namespace
