// POST /v1/reports semantics without HTTP: each refusal has its status and
// label, any bad envelope refuses the whole request, and accepted reports
// are spooled with replays dropped.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "envelope_forge.hpp"
#include "shuffler/intake.hpp"
#include "shuffler/sqlite_spool.hpp"
#include "shuffler_test_support.hpp"

namespace {

using p2b::shuffler::Rejection;
using shuffler_test::body_of;
using shuffler_test::Envelope;

class ShufflerIntake : public ::testing::Test {
 protected:
  ShufflerIntake()
      : spool(dir.file("spool.db"), shuffler_test::spool_key()),
        intake({ours.shuffler}, spool, metrics, 20 * p2b::kEnvelopeBytes,
               [this](std::size_t n) { stored += n; }) {}

  uint64_t rejected(Rejection r) const { return metrics.rejected[static_cast<int>(r)].load(); }

  shuffler_test::TempDir dir;
  shuffler_test::Deployment ours;
  p2b::shuffler::SqliteSpool spool;
  p2b::shuffler::Metrics metrics;
  std::size_t stored = 0;
  p2b::shuffler::ReportIntake intake;
};

TEST_F(ShufflerIntake, AcceptsConcatenatedEnvelopesAndDropsReplays) {
  const Envelope a = ours.seal(3);
  const Envelope b = ours.seal(3);
  auto reply = intake.handle(body_of({a, b}));
  EXPECT_EQ(reply.status, 202);
  EXPECT_EQ(reply.json, R"({"accepted":2,"duplicates":0})");
  reply = intake.handle(body_of({b, ours.seal(4), b}));
  EXPECT_EQ(reply.status, 202);
  EXPECT_EQ(reply.json, R"({"accepted":1,"duplicates":2})");
  EXPECT_EQ(spool.depth(), 3U);
  EXPECT_EQ(stored, 3U);
  EXPECT_EQ(metrics.received.load(), 3U);
  EXPECT_EQ(metrics.duplicates.load(), 2U);
}

TEST_F(ShufflerIntake, EachRefusalHasItsStatusAndStoresNothing) {
  const Envelope good = ours.seal(1);
  Envelope tampered = ours.seal(1);
  tampered[100] ^= 1;
  const shuffler_test::Deployment other;
  const std::string truncated = body_of({good}).substr(0, p2b::kEnvelopeBytes - 1);

  struct Case {
    std::string body;
    int status;
    Rejection why;
  };
  const std::vector<Case> cases = {
      {"", 400, Rejection::wrong_length},
      {truncated, 400, Rejection::wrong_length},
      {body_of({good}) + "x", 400, Rejection::wrong_length},
      {std::string(21 * p2b::kEnvelopeBytes, '\0'), 413, Rejection::too_large},
      {body_of({good, other.seal(1)}), 421, Rejection::unknown_key},
      {body_of({good, tampered}), 422, Rejection::decrypt_failed},
      {body_of({ours.seal_garbage(), good}), 422, Rejection::malformed},
  };
  for (const Case& c : cases) {
    const auto before = rejected(c.why);
    const auto reply = intake.handle(c.body);
    EXPECT_EQ(reply.status, c.status) << p2b::shuffler::rejection_label(c.why);
    // The shared error shape (docs/operations.md): a code and a sentence.
    const auto body = nlohmann::json::parse(reply.json);
    EXPECT_EQ(body["error"], p2b::shuffler::rejection_label(c.why));
    EXPECT_TRUE(body["detail"].is_string());
    EXPECT_EQ(rejected(c.why), before + 1);
  }
  EXPECT_EQ(spool.depth(), 0U);
  EXPECT_EQ(stored, 0U);
  // `good` was in refused requests only, so it is new now.
  EXPECT_EQ(intake.handle(body_of({good})).json, R"({"accepted":1,"duplicates":0})");
}

// nanopb alone leaves an absent (or empty) inner field as 112 zero bytes.
TEST_F(ShufflerIntake, AnOuterLayerWithoutAnExactInnerIsMalformed) {
  const Envelope good = ours.seal(2);
  p2b::server::OuterOpened opened{};
  ASSERT_EQ(p2b::server::open_outer(good.data(), good.size(), &ours.shuffler, 1, &opened),
            p2b::server::OpenStatus::ok);
  // The hand-made envelope with the real inner is accepted: the forge is right.
  const auto control = p2b_test::forge_outer(ours.shuffler.pk, 2, opened.inner, 112);
  const uint8_t zeros[112] = {};
  for (const auto& env : {p2b_test::forge_outer(ours.shuffler.pk, 2, nullptr, -1),
                          p2b_test::forge_outer(ours.shuffler.pk, 2, zeros, 0),
                          p2b_test::forge_outer(ours.shuffler.pk, 2, opened.inner, 111)}) {
    p2b::server::OuterOpened out{};
    EXPECT_EQ(p2b::server::open_outer(env.data(), env.size(), &ours.shuffler, 1, &out),
              p2b::server::OpenStatus::malformed);
    const auto reply = intake.handle(body_of({env}));
    EXPECT_EQ(reply.status, 422);
  }
  EXPECT_EQ(rejected(Rejection::malformed), 3U);
  EXPECT_EQ(spool.depth(), 0U);
  EXPECT_EQ(intake.handle(body_of({control})).status, 202);
}

TEST_F(ShufflerIntake, AnInnerResealedInAFreshOuterLayerIsADuplicate) {
  const Envelope original = ours.seal(5);
  p2b::server::OuterOpened opened{};
  ASSERT_EQ(p2b::server::open_outer(original.data(), original.size(), &ours.shuffler, 1, &opened),
            p2b::server::OpenStatus::ok);
  // Same inner, fresh outer layer, and even another crowd id.
  const auto resealed = p2b_test::forge_outer(ours.shuffler.pk, 5, opened.inner, 112);
  const auto moved = p2b_test::forge_outer(ours.shuffler.pk, 9, opened.inner, 112);
  ASSERT_NE(body_of({resealed}), body_of({original}));
  EXPECT_EQ(intake.handle(body_of({original, resealed})).json, R"({"accepted":1,"duplicates":1})");
  EXPECT_EQ(intake.handle(body_of({moved})).json, R"({"accepted":0,"duplicates":1})");
  EXPECT_EQ(metrics.duplicates.load(), 0U);
  EXPECT_EQ(metrics.inner_duplicates.load(), 2U);
  EXPECT_NE(metrics.render(1).find("p2b_shuffler_duplicates_total{layer=\"inner\"} 2"),
            std::string::npos);
  EXPECT_EQ(spool.depth(), 1U);
}

TEST_F(ShufflerIntake, AcceptsEveryKeyOfARotation) {
  const shuffler_test::Deployment next;
  p2b::shuffler::ReportIntake rotating({ours.shuffler, next.shuffler}, spool, metrics, 1 << 16);
  const auto reply = rotating.handle(body_of({ours.seal(1), next.seal(2)}));
  EXPECT_EQ(reply.status, 202);
  EXPECT_EQ(spool.depth(), 2U);
}

}  // namespace
