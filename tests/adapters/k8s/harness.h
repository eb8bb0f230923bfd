// Test harness: the sim's ApiServer on a free port, a K8sClusterAdapter
// pointed at it, a synchronous HTTP client for "the other side" (an admin
// editing objects), and a clock tests can move.
#ifndef RECON_TESTS_ADAPTERS_K8S_HARNESS_H_
#define RECON_TESTS_ADAPTERS_K8S_HARNESS_H_

#include <curl/curl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "adapters/k8s/adapter.h"
#include "adapters/sim/api_server.h"
#include "adapters/sim/scenario.h"
#include "runtime/time_source.h"
#include "tests/lib/eventually.h"

namespace recon::k8s::testing {

// Real time plus an offset the test moves (thread-safe).
class ShiftedClock : public runtime::TimeSource {
 public:
  int64_t NowNs() const override { return real_.NowNs() + shift_.load(); }
  void Advance(int64_t ns) { shift_ += ns; }

 private:
  runtime::RealTimeSource real_;
  std::atomic<int64_t> shift_{0};
};

struct HttpReply {
  long status = 0;
  std::string body;
};

// Start()'s object events: the Cluster events around the initial lists
// (`synced: false` first, `synced: true` with the facts last) left out.
inline absl::StatusOr<std::vector<records::EventRecord>> ObjectsOf(
    absl::StatusOr<std::vector<records::EventRecord>> start) {
  if (!start.ok()) return start;
  std::vector<records::EventRecord> out;
  for (auto& e : *start)
    if (e.type != records::EventType::kCluster) out.push_back(std::move(e));
  return out;
}

inline size_t AppendBody(char* d, size_t s, size_t n, void* u) {
  static_cast<std::string*>(u)->append(d, s * n);
  return s * n;
}

// A blocking request (the admin's side).
inline HttpReply Http(const std::string& method, const std::string& url, const std::string& body = "",
                      const std::string& content_type = "application/json", const std::string& token = "") {
  HttpReply r;
  CURL* c = curl_easy_init();
  curl_slist* h = curl_slist_append(nullptr, ("Content-Type: " + content_type).c_str());
  if (!token.empty()) h = curl_slist_append(h, ("Authorization: Bearer " + token).c_str());
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  if (!body.empty()) curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &AppendBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &r.body);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
  curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  curl_slist_free_all(h);
  curl_easy_cleanup(c);
  return r;
}

// A kubeconfig at `path` for the server at `url` with a bearer token
// (context namespace t): what `recon agent --cluster PATH` reads.
inline void WriteKubeconfig(const std::string& path, const std::string& url, const std::string& token) {
  std::ofstream(path) << "apiVersion: v1\nkind: Config\ncurrent-context: sim\n"
                         "clusters: [{name: sim, cluster: {server: \""
                      << url << "\"}}]\nusers: [{name: u, user: {token: " << token
                      << "}}]\ncontexts: [{name: sim, context: {cluster: sim, user: u, namespace: t}}]\n";
}

inline engine::ResourceType ConfigMapType() {
  return {"", "v1", "ConfigMap", "configmaps", true, false, {"cm"}};
}

inline engine::ResourceUse Use(engine::ResourceType t) {
  return {std::move(t), {"create", "delete", "get", "list", "patch", "update", "watch"}, {"update"}, {}};
}

inline std::string ConfigMap(const std::string& ns, const std::string& name, const std::string& value) {
  return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"namespace\":\"" + ns +
         "\",\"name\":\"" + name + "\"},\"data\":{\"v\":\"" + value + "\"}}";
}

inline sim::Scenario ConfigMapScenario(int n) {
  sim::Scenario s;
  s.name = "k8s-adapter-test";
  for (int i = 0; i < n; ++i) {
    auto j = engine::ParseJson(ConfigMap("t", "cm" + std::to_string(i), "v0"));
    s.objects.push_back(*j);
  }
  return s;
}

// Fast pacing for tests: short backoff, short watches.
inline K8sOptions TestOptions(const std::string& server_url) {
  K8sOptions o;
  o.rest.server = server_url;
  o.rest.context = "test";
  o.rest.source = "test";
  o.resources = {Use(ConfigMapType())};
  o.leader_election = false;
  o.reflector.backoff.initial_ns = 50'000'000;
  o.reflector.backoff.max_ns = 400'000'000;
  o.reflector.min_watch_timeout_s = 30;
  o.start_timeout_ms = 20'000;
  o.seed = 7;
  return o;
}

// Collects what an adapter delivers, the way the runtime would (Poll when
// woken).
class Collector {
 public:
  explicit Collector(K8sClusterAdapter& a) : adapter_(a) {
    adapter_.SetWakeup([this] {
      std::lock_guard<std::mutex> lock(mu_);
      woken_ = true;
      cv_.notify_all();
    });
  }
  ~Collector() { adapter_.SetWakeup(nullptr); }
  void Add(std::vector<records::EventRecord> events) {
    for (auto& e : events) events_.push_back(std::move(e));
  }
  // Polls until `pred` holds (true) or `timeout` passes (false).
  bool WaitFor(const std::function<bool()>& pred,
               std::chrono::milliseconds timeout = std::chrono::seconds(15)) {
    testlib::Deadline deadline(timeout);
    while (true) {
      Add(adapter_.Poll(runtime::RealTimeSource().NowNs()));
      if (pred()) return true;
      if (deadline.Passed()) return false;
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_for(lock, std::chrono::milliseconds(20), [this] { return woken_; });
      woken_ = false;
    }
  }
  std::vector<records::EventRecord>& events() { return events_; }
  size_t Count(records::EventType type, const std::string& name) const {
    size_t n = 0;
    for (const auto& e : events_) n += e.type == type && e.object.name == name;
    return n;
  }
  const records::EventRecord* Result(const std::string& action) const {
    for (const auto& e : events_)
      if (e.type == records::EventType::kActionResult && e.action_result.action == action) return &e;
    return nullptr;
  }

 private:
  K8sClusterAdapter& adapter_;
  std::vector<records::EventRecord> events_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool woken_ = false;
};

inline records::ActionRecord Action(uint64_t cause, const std::string& verb, const std::string& body) {
  records::ActionRecord a;
  a.cause_seq = cause;
  a.index = 0;
  a.domain = "test";
  a.verb = verb;
  a.body = body;
  auto j = engine::ParseJson(body);
  a.object.version = "v1";
  a.object.kind = engine::GetString(*j, {"kind"});
  a.object.ns = engine::GetString(*j, {"metadata", "namespace"});
  a.object.name = engine::GetString(*j, {"metadata", "name"});
  std::string api = engine::GetString(*j, {"apiVersion"});
  size_t slash = api.find('/');
  if (slash != std::string::npos) {
    a.object.group = api.substr(0, slash);
    a.object.version = api.substr(slash + 1);
  }
  return a;
}

inline size_t CountRequests(sim::ApiServer& s, const std::string& method, const std::string& needle,
                            int status = 0) {
  size_t n = 0;
  for (const auto& r : s.Requests())
    n +=
        r.method == method && r.path.find(needle) != std::string::npos && (status == 0 || r.status == status);
  return n;
}

}  // namespace recon::k8s::testing

#endif  // RECON_TESTS_ADAPTERS_K8S_HARNESS_H_
