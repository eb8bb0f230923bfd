// The simulated API server's inside (ApiServer::Impl), shared by the files
// that each hold one part of it:
//   api_server.cc            the public ApiServer: calls onto the loop thread, read access
//   api_server_loop.cc       the libuv loop and its thread, virtual time
//   api_server_faults.cc     fault controls and injected failures
//   api_server_requests.cc   routing a request to a resource and verb, dispatch, error answers
//   api_server_list.cc       get and list (selectors, paging)
//   api_server_watch.cc      watch history, fan-out to open watches, bookmarks
//   api_server_writes.cc     create, update, patch, delete
//   api_server_discovery.cc  discovery, OpenAPI, /version, health, the probe endpoint
// Everything here runs on the loop thread unless it says otherwise.
#ifndef RECON_ADAPTERS_SIM_API_SERVER_IMPL_H_
#define RECON_ADAPTERS_SIM_API_SERVER_IMPL_H_

#include <uv.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "adapters/sim/api_server.h"
#include "adapters/sim/faults.h"
#include "adapters/sim/http_selector.h"
#include "adapters/sim/http_server.h"
#include "adapters/sim/server_resources.h"
#include "adapters/sim/simulator.h"

namespace recon::sim {

using ConnId = StreamingHttpServer::ConnId;

// A request as the API sees it: the resource and the Kubernetes verb (for
// FailNext filters and the log).
struct Route {
  bool resource = false;
  const ServedResource* res = nullptr;
  std::string group, version, ns, name, sub;
  std::string verb;
};

// Query parameters: a decimal number, a boolean.
bool ParseUint(std::string_view s, uint64_t* out);
inline bool IsTrue(const std::string& v) { return v == "1" || v == "true"; }

class ApiServer::Impl {
 public:
  Impl(const Scenario& scenario, ServeOptions options, std::vector<engine::ResourceType> resources);
  ~Impl();

  // The loop (api_server_loop.cc).
  absl::Status Init();
  // Runs `fn` on the loop thread and waits; after Stop, runs it here. Any thread.
  void Call(std::function<void()> fn);
  void Stop();  // any thread

  int port() const { return port_; }
  const std::string& host() const { return opts_.host; }

  // Fault controls (api_server_faults.cc).
  void DropWatches();
  void Compact();
  void FailNext(int count, int status, int retry_after_s, std::string verb);
  void Restart();
  void Unavailable(int64_t real_ms);

  // Read access and the ARM's writes (api_server.cc).
  ServerStats stats() const;
  std::vector<std::pair<std::string, std::string>> objects() const;
  std::optional<std::string> ObjectJson(const ObjectKey& key);
  std::vector<RequestLogEntry> log() const { return log_; }
  ApiResult Write(const std::string& verb, const std::string& object_json);
  uint64_t resource_version() const { return sim_->objects().resource_version(); }
  size_t open_watches() const { return watches_.size(); }

 private:
  struct Change {
    uint64_t rv = 0;
    records::EventType type;
    std::string group, kind, ns;
    std::string body;
    Json object;
    Json previous;  // the object's metadata before the change; null when new
  };
  struct Watch {
    const ServedResource* res = nullptr;
    std::string ns;
    Selector labels, fields;
    bool bookmarks = false;
    uint64_t rv = 0;
    int64_t deadline_ms = 0;  // uv_now; 0: none
    uint64_t last_bookmark_ms = 0;
    // delayWatch: events held back until `held_until_ms` (order kept).
    std::deque<std::string> held;
    int64_t held_until_ms = 0;
  };
  struct FailRule {
    int count;
    int status;
    int retry_after_s;
    std::string verb;
  };

  // The loop and virtual time (api_server_loop.cc).
  bool running_() const { return thread_.joinable() && !stopping_ && !stopped_; }
  void RunPosted();
  int64_t VirtualNow() const;
  void Sync();
  void ArmSimTimer();

  // Injected failures (api_server_faults.cc).
  std::optional<HttpAnswer> InjectedAnswer(const Route& route);

  // Watches (api_server_watch.cc).
  void OnChanges(std::vector<records::EventRecord> events);
  static Json MetadataOf(const Json& object);
  static const char* EventFor(const Watch& w, const Change& c);
  static std::string EventLine(const char* type, std::string_view body);
  void Fanout(const Change& c);
  void Tick();
  HttpAnswer StartWatch(const HttpRequest& req, const Route& route, ConnId conn);

  // Requests (api_server_requests.cc).
  HttpAnswer Handle(const HttpRequest& req, ConnId conn);
  void CountWrite(const HttpRequest& req, const Route& route, const HttpAnswer& a);
  HttpAnswer Dispatch(const HttpRequest& req, const Route& route, ConnId conn);
  Route Parse(const HttpRequest& req) const;
  Json Details(const Route& route, const std::string& name = "") const;
  HttpAnswer Failed(const ApiResult& r, const Route& route, const std::string& name = "");
  ObjectKey KeyFor(const Route& route, const std::string& name) const;
  HttpAnswer NotFound(const Route& route);

  // Reads (api_server_list.cc).
  HttpAnswer Get(const Route& route);
  absl::Status Selectors(const HttpRequest& req, Selector* labels, Selector* fields) const;
  HttpAnswer List(const HttpRequest& req, const Route& route);
  // Every stored object of the route's type (and namespace) in key order.
  template <typename Fn>
  void ForEach(const Route& route, Fn fn) const {
    const auto& all = sim_->objects().objects();
    ObjectKey from{route.res->type.group, route.res->type.kind, route.ns, ""};
    for (auto it = all.lower_bound(from); it != all.end(); ++it) {
      const ObjectKey& k = it->first;
      if (k.group != from.group || k.kind != from.kind || (!route.ns.empty() && k.ns != route.ns)) break;
      if (!fn(k, it->second)) break;
    }
  }

  // Writes (api_server_writes.cc).
  std::string AcceptedTypes(const Route& route) const;
  static HttpAnswer BodyError(const absl::Status& s);
  absl::StatusOr<Json> Body(const HttpRequest& req, const Route& route, bool named);
  std::optional<HttpAnswer> TrackFields(const HttpRequest& req, const Route& route, const Json* live,
                                        Json& next, std::string_view options_kind);
  HttpAnswer Written(const ApiResult& r, const Route& route, const ObjectKey& key, int status);
  HttpAnswer Create(const HttpRequest& req, const Route& route);
  HttpAnswer Update(const HttpRequest& req, const Route& route);
  HttpAnswer Patch(const HttpRequest& req, const Route& route);
  HttpAnswer Delete(const HttpRequest& req, const Route& route);

  // Everything but resources (api_server_discovery.cc).
  Json GroupJson(const std::string& group) const;
  HttpAnswer ResourceList(const std::string& group, const std::string& version) const;
  HttpAnswer NonResource(const HttpRequest& req);
  HttpAnswer OpenApiV3(const std::string& gv);
  HttpAnswer Probe(const HttpRequest& req);

  Scenario scenario_;
  ServeOptions opts_;
  ResourceTable table_;
  Rng drop_rng_;
  Rng fault_rng_;  // ServeOptions::write_faults
  uv_loop_t loop_;
  bool loop_ready_ = false;
  uv_async_t async_;
  uv_timer_t sim_timer_, tick_timer_;
  std::unique_ptr<Simulator> sim_;
  std::unique_ptr<StreamingHttpServer> http_;
  int port_ = 0;
  int64_t real_start_ns_ = 0, virtual_start_ns_ = 0;

  std::deque<Change> history_;
  uint64_t floor_rv_ = 0;  // history holds every change after this resourceVersion
  uint64_t epoch_ = 0;     // compactions so far: older continue tokens expire
  std::map<ConnId, Watch> watches_;
  std::map<ObjectKey, Json> metadata_;  // every object's metadata, for selector transitions
  std::vector<FailRule> fail_next_;
  std::vector<RequestLogEntry> log_;
  ServerStats stats_;
  int64_t unavailable_until_ms_ = 0;                   // uv_now; Unavailable()
  std::unordered_map<std::string, uint32_t> applied_;  // X-Recon-Action → 2xx answers

  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::function<void()>> posted_;
  bool stopping_ = false, stopped_ = false;
};

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_API_SERVER_IMPL_H_
