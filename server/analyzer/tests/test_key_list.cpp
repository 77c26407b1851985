// GET /v1/keys: the analyzer serves the p2b-keylist file it was given, with
// an ETag and 304, after checking at start that devices pinning its signing
// key would accept the list's form and signer; 404 without one.
#include <gtest/gtest.h>
#include <httplib.h>

#include <fstream>
#include <stdexcept>
#include <thread>

#include "http_api.hpp"
#include "key_list_file.hpp"
#include "key_list_support.hpp"
#include "temp_dir.hpp"

namespace {

namespace an = p2b::analyzer;

std::string write_file(const p2b_test::TempDir& dir, const std::string& name,
                       const std::vector<uint8_t>& bytes) {
  std::string path = dir.file(name);
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  return path;
}

std::vector<uint8_t> list_v(uint64_t version) {
  p2b_test::ListOptions opt;
  opt.version = version;
  opt.keys = {p2b_test::test_keys().shuffler_pk};
  return p2b_test::signed_list(opt);
}

// Runs `serve_key_list(list)` on a free loopback port.
class KeysServer {
 public:
  explicit KeysServer(const an::ServedKeyList* list) {
    an::serve_key_list(&server_, list);
    port_ = server_.bind_to_any_port("127.0.0.1");
    if (port_ <= 0) std::abort();
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 5000 && !server_.is_running(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  ~KeysServer() {
    server_.stop();
    thread_.join();
  }
  KeysServer(const KeysServer&) = delete;
  KeysServer& operator=(const KeysServer&) = delete;
  httplib::Client client() const { return httplib::Client("127.0.0.1", port_); }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
};

TEST(AnalyzerKeyList, ServedWithAnETagAnd304) {
  const p2b_test::TempDir tmp;
  const std::vector<uint8_t> bytes = list_v(3);
  const an::ServedKeyList list =
      an::load_key_list_file(write_file(tmp, "keys.bin", bytes), p2b_test::test_keys().sign_sk);
  EXPECT_EQ(list.version, 3U);
  const KeysServer s(&list);
  auto res = s.client().Get("/v1/keys");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, std::string(bytes.begin(), bytes.end()));
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/octet-stream");
  const std::string etag = res->get_header_value("ETag");
  EXPECT_EQ(etag, list.etag);
  EXPECT_EQ(etag.size(), 34U) << "a quoted BLAKE2b-128 of the list";
  res = s.client().Get("/v1/keys", {{"If-None-Match", etag}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 304);
  EXPECT_TRUE(res->body.empty());
  res = s.client().Get("/v1/keys", {{"If-None-Match", "\"00\""}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);

  // Another list, another tag.
  const an::ServedKeyList next =
      an::load_key_list_file(write_file(tmp, "next.bin", list_v(4)), p2b_test::test_keys().sign_sk);
  EXPECT_NE(next.etag, list.etag);
}

TEST(AnalyzerKeyList, NoListIs404) {
  const KeysServer s(nullptr);
  const auto res = s.client().Get("/v1/keys");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  EXPECT_EQ(res->body, R"({"error":"no_key_list","detail":"no --key-list configured"})");
}

TEST(AnalyzerKeyList, AListDevicesWouldRefuseStopsTheStart) {
  const p2b_test::TempDir tmp;
  const uint8_t* sk = p2b_test::test_keys().sign_sk;
  const auto refused = [&](const std::string& name, const std::vector<uint8_t>& bytes,
                           const char* why) {
    try {
      an::load_key_list_file(write_file(tmp, name, bytes), sk);
      ADD_FAILURE() << name << " loaded";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  std::vector<uint8_t> truncated = list_v(1);
  truncated.pop_back();
  refused("short.bin", truncated, "short.bin");
  p2b_test::ListOptions opt;
  opt.keys = {p2b_test::test_keys().shuffler_pk};
  opt.sign_sk = p2b_test::test_keys().shuffler_sign_sk;  // another deployment key
  refused("other-signer.bin", p2b_test::signed_list(opt), "not signed by this analyzer");
  opt.sign_sk = nullptr;
  opt.signer_pk = p2b_test::test_keys().shuffler_verify_pk;
  refused("named-other.bin", p2b_test::signed_list(opt), "names another signer");
  EXPECT_THROW(an::load_key_list_file(tmp.file("missing.bin"), sk), std::runtime_error);
}

}  // namespace
