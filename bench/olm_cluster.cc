#include "bench/olm_cluster.h"

#include <algorithm>
#include <utility>

#include "base/strings.h"
#include "engine/emit.h"
#include "engine/write_tracker.h"

namespace recon::bench {

using engine::Json;

OlmBenchCluster::OlmBenchCluster(std::shared_ptr<const sim::OlmBundles> bundles,
                                 std::deque<records::EventRecord>* queue)
    : bundles_(std::move(bundles)), queue_(*queue), controller_(sim::OlmClusterStandIn(bundles_)) {}

void OlmBenchCluster::Seed(Json object, int64_t now) {
  if (Write("create", std::move(object), now).status != 201) return;
  React(now);
}

OlmBenchCluster::Outcome OlmBenchCluster::Write(const std::string& verb, Json body, int64_t now) {
  Outcome out;
  auto key = sim::KeyOf(body);
  if (!key.ok()) {
    out.status = 422;
    out.error = std::string(key.status().message());
    return out;
  }
  const Json* live = store_.Get(*key);
  if (verb == "create") {
    if (live != nullptr) {
      out.status = 409;
      out.error = StrCat(sim::KeyString(*key), " already exists");
      return out;
    }
    body.erase("status");  // a create's status is dropped, as a real server does
    Json& meta = body["metadata"];
    meta["uid"] = store_.NextUid();
    meta["resourceVersion"] = store_.NextResourceVersion();
    if (key->kind == "InstallPlan") ++install_plans_;
    store_.Put(*key, std::move(body));
    out.status = 201;
    out.object = store_.Get(*key);
    changes_.push_back(sim::WatchEvent(records::EventType::kAdded, *out.object, now));
    return out;
  }
  if (live == nullptr) {
    out.status = 404;
    out.error = StrCat(sim::KeyString(*key), " not found");
    return out;
  }
  if (verb == "delete") {
    changes_.push_back(sim::WatchEvent(records::EventType::kDeleted, *live, now));
    store_.Erase(*key);
    return out;
  }
  // update keeps the status, updateStatus changes only it (a status
  // subresource); neither changes the uid.
  Json next;
  if (verb == "updateStatus") {
    next = *live;
    if (body.contains("status")) {
      next["status"] = std::move(body["status"]);
    } else {
      next.erase("status");
    }
  } else {
    next = std::move(body);
    if (live->contains("status")) {
      next["status"] = (*live)["status"];
    } else {
      next.erase("status");
    }
    next["metadata"]["uid"] = (*live)["metadata"]["uid"];
  }
  next["metadata"]["resourceVersion"] = (*live)["metadata"]["resourceVersion"];
  out.object = live;
  if (next == *live) return out;  // no change: no event, the same resourceVersion
  next["metadata"]["resourceVersion"] = store_.NextResourceVersion();
  store_.Put(*key, std::move(next));
  out.object = store_.Get(*key);
  changes_.push_back(sim::WatchEvent(records::EventType::kModified, *out.object, now));
  return out;
}

bool OlmBenchCluster::Stale(const std::string& verb, const Json& body) const {
  if (verb != "update" && verb != "updateStatus") return false;
  const std::string rv = engine::GetString(body, {"metadata", "resourceVersion"});
  auto key = sim::KeyOf(body);
  if (rv.empty() || !key.ok()) return false;
  const Json* live = store_.Get(*key);
  return live != nullptr && engine::GetString(*live, {"metadata", "resourceVersion"}) != rv;
}

void OlmBenchCluster::Apply(const std::vector<records::ActionRecord>& actions, int64_t now) {
  for (const auto& a : actions) {
    if (!engine::WriteTracker::Tracked(a.verb)) continue;
    auto body = engine::ParseJson(a.body);
    Outcome o;
    if (body.ok() && Stale(a.verb, *body)) {
      // An update over an older resourceVersion: 409, as a real server
      // answers it (two plans updating one CRD lost each other's
      // installed-alongside annotations without it).
      o.status = 409;
      o.error = "the object has been modified; please apply your changes to the latest version and try again";
    } else if (body.ok()) {
      o = Write(a.verb, *std::move(body), now);
    } else {
      o.status = 400;
      o.error = std::string(body.status().message());
    }
    records::EventRecord r;
    r.type = records::EventType::kActionResult;
    r.time_ns = now;
    r.action_result.action = engine::ActionId(a.cause_seq, a.index);
    r.action_result.ok = o.status < 300;
    r.action_result.status = o.status;
    r.action_result.error = o.error;
    if (o.object != nullptr) {
      r.action_result.resource_version = engine::GetString(*o.object, {"metadata", "resourceVersion"});
      r.action_result.uid = engine::GetString(*o.object, {"metadata", "uid"});
    }
    // The answer first, then the watch event of the change (the order the
    // runtime sees them in on a quiet connection).
    queue_.push_back(std::move(r));
    React(now);
  }
}

void OlmBenchCluster::React(int64_t now) {
  // changes_ holds the events of writes just made: each is delivered, then
  // the controllers see it; their writes add to changes_.
  while (!changes_.empty()) {
    records::EventRecord e = std::move(changes_.front());
    changes_.pop_front();
    queue_.push_back(e);
    std::vector<sim::ControllerWrite> writes = controller_(e, store_);
    std::stable_sort(writes.begin(), writes.end(),
                     [](const auto& a, const auto& b) { return a.delay_ns < b.delay_ns; });
    for (auto& w : writes) Write(w.verb, std::move(w.object), now);
  }
}

}  // namespace recon::bench
