// One resource type kept in sync, by client-go's reflector rules: a
// consistent, paginated list (limit/continue), then a watch from the
// list's resourceVersion with bookmarks and a randomized timeout; a watch
// that ends is resumed from the last resourceVersion seen (bookmarks
// advance it); 410 Gone means relist, and the relist is diffed against
// what was delivered so nothing is lost or duplicated; failures back off
// (800 ms → 30 s, jittered). Loop thread only, except the counters.
#ifndef RECON_ADAPTERS_K8S_REFLECTOR_H_
#define RECON_ADAPTERS_K8S_REFLECTOR_H_

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "adapters/http/paced_client.h"
#include "adapters/k8s/backoff.h"
#include "adapters/k8s/paths.h"
#include "adapters/k8s/relist.h"
#include "adapters/k8s/watch_stream.h"
#include "engine/resource.h"
#include "runtime/time_source.h"

namespace recon::k8s {

struct ReflectorOptions {
  int page_size = 500;
  // Watch timeoutSeconds is drawn from [min, 2*min) like client-go's.
  int64_t min_watch_timeout_s = 300;
  BackoffOptions backoff;
};

struct ReflectorStats {
  std::atomic<uint64_t> lists{0}, pages{0}, watches{0}, relists{0}, bookmarks{0}, errors{0}, events{0};
};

class Reflector {
 public:
  using Deliver = std::function<void(std::vector<records::EventRecord>)>;
  Reflector(http::IoLoop& loop, http::PacedClient& api, engine::ResourceType type, ReflectorOptions options,
            Rng& rng, const runtime::TimeSource& clock, Deliver deliver);

  // What the log already holds (before Start): the first list is diffed
  // against it.
  void Seed(ObjectCache known) { cache_ = std::move(known); }
  void Start();
  void Stop();
  // Called once when the server has rejected the credentials (401) on
  // `kMaxUnauthorized` requests in a row: retrying will not help, the
  // process should restart (and re-read its token). The reflector stops.
  void SetFatal(std::function<void(const std::string&)> fatal) { fatal_ = std::move(fatal); }
  // Gets, after each list, the objects it found unchanged (no event for
  // them): runtime::ClusterAdapter::SetSeenUnchanged. Before Start.
  void SetSeenUnchanged(Deliver seen) { seen_ = std::move(seen); }
  static constexpr int kMaxUnauthorized = 5;

  const engine::ResourceType& type() const { return type_; }
  bool synced() const { return synced_.load(); }
  std::string resource_version() const;
  std::string last_error() const;
  const ReflectorStats& stats() const { return stats_; }
  std::string Name() const;  // "configmaps" or "configs.samples.operator.openshift.io"

 private:
  void List();
  void ListPage(std::string continue_token, std::shared_ptr<std::vector<ListedObject>> items);
  void Watch();
  void OnWatchEvent(const WatchEvent& ev, bool* stop);
  void Retry(bool relist, const std::string& why);
  // Counts 401s in a row; true when it gave up (fatal called).
  bool GaveUp(const http::HttpResponse& r, const std::string& why);
  void SetError(const std::string& e);

  http::IoLoop& loop_;
  http::PacedClient& api_;
  engine::ResourceType type_;
  ReflectorOptions options_;
  Rng& rng_;
  Backoff backoff_;
  const runtime::TimeSource& clock_;
  Deliver deliver_;
  std::function<void(const std::string&)> fatal_;
  Deliver seen_;
  int unauthorized_ = 0;
  ObjectCache cache_;
  std::string rv_;  // last resourceVersion seen; "" → list
  bool stopped_ = false;
  bool relist_needed_ = false;
  std::atomic<bool> synced_{false};
  mutable std::mutex mu_;  // rv_copy_, last_error_
  std::string rv_copy_, last_error_;
  ReflectorStats stats_;
};

}  // namespace recon::k8s

#endif  // RECON_ADAPTERS_K8S_REFLECTOR_H_
