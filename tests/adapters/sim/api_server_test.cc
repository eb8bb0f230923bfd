// The simulated API server over real HTTP (libcurl easy): its loop and
// virtual time (scenario edits and ImageStreamImports landing later on the
// scaled clock), large bodies, keep-alive and concurrent clients.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "tests/adapters/sim/api_server_test_util.h"

namespace recon::sim::http_testing {
namespace {

TEST_F(ApiServerTest, LargeBodiesAndExpectContinue) {
  // libcurl sends "Expect: 100-continue" for large bodies (asked for here
  // explicitly); the server answers 100 so the body follows at once.
  std::string big(200 * 1024, 'x');
  Json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata", {{"name", "big"}, {"namespace", "demo"}}},
             {"data", {{"blob", big}}}};
  Resp r = Do("POST", CmUrl(), engine::Dump(cm), "application/json", "Expect: 100-continue");
  ASSERT_EQ(r.status, 201);
  EXPECT_NE(r.headers.find("100 Continue"), std::string::npos) << r.headers;
  EXPECT_EQ(Do("GET", CmUrl("big")).json()["data"]["blob"].get<std::string>().size(), big.size());
}

TEST_F(ApiServerTest, ImageStreamImportLandsInStatusLater) {
  Json isi = {
      {"apiVersion", "image.openshift.io/v1"},
      {"kind", "ImageStreamImport"},
      {"metadata", {{"name", "python"}, {"namespace", "openshift"}}},
      {"spec",
       {{"import", true},
        {"images",
         {{{"from", {{"kind", "DockerImage"}, {"name", "registry.example.com/ubi9/python-311:latest"}}},
           {"to", {{"name", "3.11"}}}},
          {{"from", {{"kind", "DockerImage"}, {"name", "registry.example.com/broken/python:1"}}},
           {"to", {{"name", "broken"}}}}}}}}};
  Resp r =
      Do("POST", U("/apis/image.openshift.io/v1/namespaces/openshift/imagestreamimports"), engine::Dump(isi));
  ASSERT_EQ(r.status, 201) << r.body;
  std::string url = U("/apis/image.openshift.io/v1/namespaces/openshift/imagestreams/python");
  Json stream;
  ASSERT_TRUE(Eventually([&] {
    Resp g = Do("GET", url);
    if (g.status != 200) return false;
    stream = g.json();
    return engine::Path(stream, {"status", "tags"}).size() == 2;
  })) << stream.dump();
  for (const Json& t : stream["status"]["tags"]) {
    if (t["tag"] == "3.11") {
      EXPECT_EQ(t["items"].size(), 1u);
      EXPECT_TRUE(t["items"][0]["image"].get<std::string>().starts_with("sha256:"));
    } else {
      EXPECT_EQ(t["tag"], "broken");
      EXPECT_EQ(t["conditions"][0]["type"], "ImportSuccess");
      EXPECT_EQ(t["conditions"][0]["status"], "False");
    }
  }
  // Only create is served on imagestreamimports.
  EXPECT_EQ(Do("GET", U("/apis/image.openshift.io/v1/namespaces/openshift/imagestreamimports")).status, 405);
  Resp bad = Do("POST", U("/apis/image.openshift.io/v1/namespaces/openshift/imagestreamimports"),
                R"({"metadata":{"name":"x"},"spec":{"import":true,"images":"no"}})");
  EXPECT_EQ(bad.status, 422) << bad.body;
}

TEST_F(ApiServerTest, SpecTagEditTriggersImport) {
  std::string url = U("/apis/image.openshift.io/v1/namespaces/openshift/imagestreams/ruby");
  Resp p = Do(
      "PATCH", url,
      R"([{"op":"add","path":"/spec/tags/-","value":{"name":"3.3","from":{"kind":"DockerImage","name":"registry.example.com/ruby:3.3"}}}])",
      "application/json-patch+json");
  ASSERT_EQ(p.status, 200) << p.body;
  EXPECT_TRUE(Eventually([&] {
    Json stream = Do("GET", url).json();
    for (const Json& t : engine::Path(stream, {"status", "tags"})) {
      if (t["tag"] == "3.3" && t.contains("items")) return true;
    }
    return false;
  }));
}

TEST_F(ApiServerTest, ScenarioEditsRunOnTheScaledClock) {
  server_.reset();
  Scenario s = SamplesScenario();
  Edit edit;
  edit.at_ns = 120'000'000'000;  // 2m virtual: 0.12s real at speed 1000
  edit.op = Edit::Op::kSet;
  edit.object = {{"kind", "Config"}, {"name", "cluster"}};
  edit.path = "spec.managementState";
  edit.value = "Removed";
  s.edits.push_back(edit);
  StartServer({}, s);
  std::string url = U("/apis/samples.operator.openshift.io/v1/configs");
  WatchResult w =
      Watch(url + "?watch=1&resourceVersion=" + std::to_string(server_->ResourceVersion()), AtLeast(1));
  ASSERT_EQ(w.events.size(), 1u);
  EXPECT_EQ(w.events[0]["type"], "MODIFIED");
  EXPECT_EQ(w.events[0]["object"]["spec"]["managementState"], "Removed");
}

TEST_F(ApiServerTest, KeepAliveServesManyRequestsOnOneConnection) {
  CURL* c = curl_easy_init();
  std::string body;
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, Append);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
  long connects = 0;
  for (int i = 0; i < 20; ++i) {
    curl_easy_setopt(c, CURLOPT_URL, U("/api/v1/namespaces").c_str());
    ASSERT_EQ(curl_easy_perform(c), CURLE_OK);
    long n = 0;
    curl_easy_getinfo(c, CURLINFO_NUM_CONNECTS, &n);
    connects += n;
  }
  curl_easy_cleanup(c);
  EXPECT_EQ(connects, 1);
}

TEST_F(ApiServerTest, ManyConcurrentClients) {
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&, i] {
      for (int j = 0; j < 10; ++j) {
        if (CreateCm("c-" + std::to_string(i) + "-" + std::to_string(j)).status == 201) ++ok;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 160);
  EXPECT_EQ(Do("GET", CmUrl()).json()["items"].size(), 160u);
}

}  // namespace
}  // namespace recon::sim::http_testing
