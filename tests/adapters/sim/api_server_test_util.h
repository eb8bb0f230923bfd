// Helpers of the simulated API server's tests (api_server_*_test.cc): one
// request or one watch over real HTTP with libcurl easy, and a fixture
// serving tests/adapters/sim/testdata/serve-samples.json.
#ifndef RECON_TESTS_ADAPTERS_SIM_API_SERVER_TEST_UTIL_H_
#define RECON_TESTS_ADAPTERS_SIM_API_SERVER_TEST_UTIL_H_

#include <curl/curl.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "adapters/sim/api_server.h"
#include "adapters/sim/scenario.h"
#include "engine/json.h"
#include "tests/lib/eventually.h"

namespace recon::sim::http_testing {

using engine::Json;

struct Resp {
  long status = 0;
  std::string body;
  std::string headers;
  CURLcode code = CURLE_OK;
  Json json() const {
    auto j = engine::ParseJson(body);
    return j.ok() ? *j : Json();
  }
};

inline size_t Append(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// One request. Timeouts are generous: they only stop a hung test.
inline Resp Do(const std::string& method, const std::string& url, const std::string& body = "",
               const std::string& content_type = "application/json", const std::string& extra_header = "") {
  Resp r;
  CURL* c = curl_easy_init();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, Append);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &r.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, Append);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &r.headers);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
  curl_slist* hdrs = nullptr;
  hdrs = curl_slist_append(hdrs, ("Content-Type: " + content_type).c_str());
  if (!extra_header.empty()) hdrs = curl_slist_append(hdrs, extra_header.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
  if (!body.empty()) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  r.code = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  curl_slist_free_all(hdrs);
  curl_easy_cleanup(c);
  return r;
}

// A watch: reads JSON lines until `enough` says so (or the stream ends).
struct WatchResult {
  std::vector<Json> events;
  CURLcode code = CURLE_OK;
  long status = 0;
};

struct WatchState {
  std::string buf;
  std::vector<Json> events;
  std::function<bool(const std::vector<Json>&)> enough;
};

inline size_t OnWatchData(char* data, size_t size, size_t n, void* p) {
  auto* st = static_cast<WatchState*>(p);
  st->buf.append(data, size * n);
  for (size_t nl; (nl = st->buf.find('\n')) != std::string::npos;) {
    auto j = engine::ParseJson(std::string_view(st->buf).substr(0, nl));
    st->buf.erase(0, nl + 1);
    if (j.ok()) st->events.push_back(*j);
  }
  if (st->enough && st->enough(st->events)) return 0;  // stop reading: we have what we wanted
  return size * n;
}

inline WatchResult Watch(const std::string& url, std::function<bool(const std::vector<Json>&)> enough) {
  WatchState st;
  st.enough = std::move(enough);
  CURL* c = curl_easy_init();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, OnWatchData);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &st);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
  WatchResult r;
  r.code = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  curl_easy_cleanup(c);
  r.events = std::move(st.events);
  return r;
}

inline std::function<bool(const std::vector<Json>&)> AtLeast(size_t n) {
  return [n](const std::vector<Json>& e) { return e.size() >= n; };
}

using testlib::Eventually;  // network waits only

inline Scenario SamplesScenario() {
  auto s = LoadScenario(RECON_SOURCE_DIR "/tests/adapters/sim/testdata/serve-samples.json");
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : Scenario{};
}

class ApiServerTest : public ::testing::Test {
 protected:
  void StartServer(ServeOptions opts = {}, Scenario scenario = SamplesScenario()) {
    opts.speed = opts.speed == 1 ? 1000 : opts.speed;  // 1s import latency = 1ms real
    auto s = ApiServer::Start(scenario, opts);
    ASSERT_TRUE(s.ok()) << s.status();
    server_ = std::move(*s);
    base_ = server_->url();
  }
  void SetUp() override { StartServer(); }
  std::string U(const std::string& path) const { return base_ + path; }
  std::string CmUrl(const std::string& name = "") const {
    return U("/api/v1/namespaces/demo/configmaps" + (name.empty() ? "" : "/" + name));
  }
  Resp CreateCm(const std::string& name, const Json& extra = Json::object()) {
    Json cm = {{"apiVersion", "v1"},
               {"kind", "ConfigMap"},
               {"metadata", {{"name", name}, {"namespace", "demo"}}},
               {"data", {{"k", "v"}}}};
    cm.merge_patch(extra);
    return Do("POST", CmUrl(), engine::Dump(cm));
  }

  std::unique_ptr<ApiServer> server_;
  std::string base_;
};

}  // namespace recon::sim::http_testing

#endif  // RECON_TESTS_ADAPTERS_SIM_API_SERVER_TEST_UTIL_H_
