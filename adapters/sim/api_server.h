// The simulated cluster served over the Kubernetes HTTP API: discovery,
// list/get/create/update/patch/delete, the status subresource, watches
// (chunked JSON lines, resumable from a bounded history, bookmarks) and
// ImageStreamImports, on its own libuv loop in a background thread. The
// simulator's queue (imports, scripted edits) runs on real time scaled by
// `speed`. Fault controls are thread-safe so in-process tests can drive
// them. Endpoints and limits: adapters/sim/README.md, "Serving".
#ifndef RECON_ADAPTERS_SIM_API_SERVER_H_
#define RECON_ADAPTERS_SIM_API_SERVER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "adapters/sim/scenario.h"
#include "adapters/sim/simulator.h"
#include "engine/resource.h"

namespace recon::sim {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 0;                     // 0 picks a free port
  double speed = 1;                 // virtual seconds per real second
  size_t history = 1000;            // watch events kept for resuming watches
  int bookmark_interval_ms = 1000;  // BOOKMARK cadence for allowWatchBookmarks
  std::string token;                // when set, requests need "Authorization: Bearer <token>"
  // This fraction of writes is answered with an injected failure, drawn from
  // a generator seeded with `fault_seed`: 409 Conflict (updates and patches
  // only: a create or delete cannot conflict), 429 with Retry-After: 1, or 500.
  double write_faults = 0;
  uint64_t fault_seed = 1;
  // Controllers the cluster runs besides the API (simulator.h); none when unset.
  Controller controller;
  // The CRDs served with real semantics and whether writes are validated
  // (api.h); every CRD's kind is served besides the built-in table.
  ApiOptions api = ApiOptions::Default();
};

// What the server saw, for checks after a soak (ApiServer::Stats).
struct ServerStats {
  uint64_t requests = 0;
  uint64_t injected = 0;     // FailNext answers and the scenario's write faults
  uint64_t unavailable = 0;  // answered 503 during an outage (Unavailable)
  uint64_t outages = 0;
  uint64_t watch_events = 0;    // sent on watch streams (BOOKMARKs excluded)
  uint64_t watch_dropped = 0;   // streams ended by the dropWatch fault or DropWatches()
  uint64_t watch_delayed = 0;   // events held back by the delayWatch fault
  uint64_t writes_applied = 0;  // 2xx answers to create, update, patch, delete
  uint64_t already_exists = 0;  // creates of an object that existed (409 AlreadyExists)
  // Requests naming an action (X-Recon-Action) answered 2xx more than once:
  // the same action applied twice.
  uint64_t actions_applied_twice = 0;
  // The scenario's edits (the user's writes): applied, and refused (a
  // delete of an object already gone, or a workload bug), with the first
  // few refusals.
  uint64_t edits_applied = 0, edits_failed = 0;
  std::vector<std::string> edit_failures;
  std::vector<std::string> examples;  // the first few of the two above, as "METHOD path (action)"
};

struct RequestLogEntry {
  std::string method;
  std::string path;  // with the query string
  int status = 0;
};

class ApiServer {
 public:
  // Creates the scenario's objects, binds, and starts serving in a
  // background thread. `resources` are served besides the built-ins
  // (server_resources.h).
  static absl::StatusOr<std::unique_ptr<ApiServer>> Start(const Scenario& scenario, ServeOptions options,
                                                          std::vector<engine::ResourceType> resources = {});
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  int port() const;
  std::string url() const;  // "http://127.0.0.1:PORT"
  // Closes every connection and joins the loop thread. Idempotent.
  void Stop();

  // Fault controls (thread-safe; they take effect before they return).
  void DropWatches();  // end every open watch stream mid-flight
  void Compact();      // forget history: older resourceVersions get 410
  // The next `count` requests (whose verb is `verb_filter`, when set: get,
  // list, watch, create, update, patch, delete) are answered with `status`
  // and a Status body; `retry_after_s` > 0 adds Retry-After.
  void FailNext(int count, int status, int retry_after_s = 0, std::string verb_filter = "");
  // A server restart: every connection and watch dropped, history
  // forgotten (410 for older resourceVersions), objects kept.
  void Restart();
  // The API is down for `real_ms` milliseconds: open watches end and every
  // request is answered 503 until then.
  void Unavailable(int64_t real_ms);

  // Read access for assertions (thread-safe copies).
  std::optional<std::string> ObjectJson(const std::string& group, const std::string& kind,
                                        const std::string& ns, const std::string& name);
  std::vector<RequestLogEntry> Requests();
  uint64_t ResourceVersion();  // the cluster-wide counter
  size_t OpenWatches();
  ServerStats Stats();
  // A client's write from another thread (the simulated ARM, arm_server.h):
  // verb create/update with the Api's semantics; its events go to watches.
  ApiResult Write(const std::string& verb, const std::string& object_json);
  // Every stored object as "group/kind/namespace/name" → JSON, in key order.
  std::vector<std::pair<std::string, std::string>> Objects();

  class Impl;

 private:
  explicit ApiServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_API_SERVER_H_
