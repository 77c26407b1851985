// The shuffler-key list end to end with a real p2b-analyzer process: it
// serves the --key-list file at GET /v1/keys, a device agent pinning the
// analyzer's key applies what it downloaded and then seals to the list's
// current key, which the shuffler's new secret key opens; and an analyzer
// given a list its devices would refuse does not start.
#include <gtest/gtest.h>
#include <httplib.h>

#include <fstream>
#include <iterator>
#include <stdexcept>

#include "key_list_support.hpp"
#include "service_fixture.hpp"
#include "test_support.hpp"
#include "wire/envelope_open.hpp"

namespace {

using p2b_services::Deployment;

std::string write_list(const Deployment& d, const char* name, const std::vector<uint8_t>& list) {
  const auto path = d.dir() / name;
  Deployment::write_file(path, list.data(), list.size(), 0644);
  return path.string();
}

std::string file_text(const p2b_services::fs::path& p) {
  std::ifstream f(p);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

TEST(ServicesKeyList, ADeviceAppliesTheServedListAndSealsToItsCurrentKey) {
  Deployment d("key-list-served");
  const p2b_test::BoxPair next;
  p2b_test::ListOptions opt;
  opt.version = 2;
  opt.keys = {next.pk, p2b_test::test_keys().shuffler_pk};
  const std::vector<uint8_t> list = p2b_test::signed_list(opt);
  d.start_analyzer(1, 0, {"--key-list", write_list(d, "keylist.bin", list)});

  httplib::Client client("127.0.0.1", d.analyzer().port());
  client.set_connection_timeout(5);
  client.set_read_timeout(5);
  auto res = client.Get("/v1/keys");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  ASSERT_EQ(res->body, std::string(list.begin(), list.end()));
  const std::string etag = res->get_header_value("ETag");
  auto again = client.Get("/v1/keys", {{"If-None-Match", etag}});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 304);
  EXPECT_NE(file_text(d.dir() / "analyzer.log").find("\"key_list\""), std::string::npos);

  p2b_config cfg = p2b_test::base_config(4, 3, 8, 5);
  cfg.window = 1;
  cfg.participation = 0.999;
  auto device = p2b_test::make_agent(cfg);
  const auto* bytes = reinterpret_cast<const uint8_t*>(res->body.data());
  ASSERT_EQ(p2b_agent_apply_key_list(device.agent, bytes, res->body.size(), 1795000000), P2B_OK);
  const float x[4] = {1, 2, 3, 4};
  uint32_t action = 0;
  uint64_t id = 0;
  ASSERT_EQ(p2b_agent_decide(device.agent, x, 4, &action, &id), P2B_OK);
  ASSERT_EQ(p2b_agent_reward(device.agent, id, 1.0F), P2B_OK);
  uint8_t env[P2B_ENVELOPE_BYTES];
  size_t n = 0;
  ASSERT_EQ(p2b_agent_poll_envelope(device.agent, env, sizeof env, &n), P2B_OK);
  p2b::server::BoxKey key{};
  ASSERT_TRUE(p2b::server::make_box_key(next.pk, next.sk, &key));
  p2b::server::OuterOpened outer{};
  EXPECT_EQ(p2b::server::open_outer(env, n, &key, 1, &outer), p2b::server::OpenStatus::ok);
  EXPECT_EQ(d.analyzer().stop(), 0);
}

TEST(ServicesKeyList, WithoutAListTheRouteIs404) {
  Deployment d("key-list-none");
  d.start_analyzer();
  httplib::Client client("127.0.0.1", d.analyzer().port());
  client.set_read_timeout(5);
  const auto res = client.Get("/v1/keys");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  EXPECT_EQ(d.analyzer().stop(), 0);
}

TEST(ServicesKeyList, AListDevicesWouldRefuseStopsTheStart) {
  Deployment d("key-list-refused");
  p2b_test::ListOptions opt;
  opt.keys = {p2b_test::test_keys().shuffler_pk};
  opt.sign_sk = p2b_test::test_keys().shuffler_sign_sk;  // not the analyzer's key
  const std::string path = write_list(d, "foreign.bin", p2b_test::signed_list(opt));
  EXPECT_THROW(d.start_analyzer(1, 0, {"--key-list", path}), std::runtime_error);
  const std::string log = file_text(d.dir() / "analyzer.log");
  EXPECT_NE(log.find("key_list_unusable"), std::string::npos) << log;
  EXPECT_NE(log.find("not signed by this analyzer"), std::string::npos) << log;
}

}  // namespace
