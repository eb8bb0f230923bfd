#include "adapters/k8s/adapter.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <set>
#include <thread>

#include "adapters/k8s/objects.h"
#include "base/strings.h"
#include "engine/emit.h"
#include "engine/json.h"
#include "spdlog/spdlog.h"

namespace recon::k8s {
namespace {

bool Has(const std::vector<std::string>& v, std::string_view x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string TypeName(const engine::ResourceType& t) {
  return t.group.empty() ? t.plural : recon::StrCat(t.plural, ".", t.group);
}

}  // namespace

K8sClusterAdapter::K8sClusterAdapter(K8sOptions options, const runtime::TimeSource& clock)
    : options_(std::move(options)), clock_(clock), rng_(options_.seed), loop_(clock), write_backoff_(rng_) {}

K8sClusterAdapter::~K8sClusterAdapter() { Shutdown(); }

void K8sClusterAdapter::SetWakeup(std::function<void()> wake) {
  std::lock_guard<std::mutex> lock(mu_);
  wake_ = std::move(wake);
}

void K8sClusterAdapter::SetSeenUnchanged(WantedType wanted, SeenUnchanged seen) {
  seen_wanted_ = std::move(wanted);
  seen_ = std::move(seen);
}

void K8sClusterAdapter::Wake() {
  std::function<void()> wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    wake = wake_;
  }
  if (wake) wake();
}

void K8sClusterAdapter::Deliver(std::vector<records::EventRecord> events) {
  if (events.empty()) {
    // A reflector finished its first list; Start() may be waiting for it.
    { std::lock_guard<std::mutex> lock(mu_); }
    cv_.notify_all();
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& e : events) out_.push_back(std::move(e));
  }
  cv_.notify_all();
  Wake();
}

const engine::ResourceType* K8sClusterAdapter::TypeOf(std::string_view group, std::string_view kind) const {
  for (const auto& t : types_) {
    if (t.group == group && t.kind == kind) return &t;
  }
  return nullptr;
}

absl::Status K8sClusterAdapter::Discover() {
  // An API server that is restarting answers 5xx or not at all: wait for it
  // (as a pod would crash-loop until it answers) up to the start timeout.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.start_timeout_ms);
  int64_t wait_ms = 200;
  for (;;) {
    absl::Status s = DiscoverOnce();
    if (!absl::IsUnavailable(s) ||
        std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms) > deadline)
      return s;
    spdlog::warn("k8s: {}; trying again in {} ms", Sv(s.message()), wait_ms);
    std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
    wait_ms = std::min<int64_t>(wait_ms * 2, 5000);
  }
}

absl::Status K8sClusterAdapter::DiscoverOnce() {
  // One request per group/version; a type is served when its plural is
  // listed there.
  std::map<std::pair<std::string, std::string>, std::vector<const engine::ResourceType*>> by_gv;
  for (const auto& t : types_) by_gv[{t.group, t.version}].push_back(&t);
  struct State {
    std::promise<void> done;
    size_t left;
    std::vector<std::string> missing, errors;
    bool permanent = false;  // an answer other than 429, 5xx or none
  };
  auto st = std::make_shared<State>();
  st->left = by_gv.size();
  if (st->left == 0) return absl::OkStatus();
  loop_.Post([this, st, by_gv] {
    for (const auto& [gv, types] : by_gv) {
      http::HttpRequest req;
      std::string path = GroupVersionPath(gv.first, gv.second);
      req.url = api_->Url(path);
      api_->Send(std::move(req), [st, types = types, path](http::HttpResponse r) {
        if (r.status == 200) {
          auto j = engine::ParseJson(r.body);
          std::vector<std::string> names;
          if (j.ok()) {
            const engine::Json& res = engine::Path(*j, {"resources"});
            if (res.is_array())
              for (const auto& x : res) names.push_back(engine::GetString(x, {"name"}));
          }
          for (const auto* t : types)
            if (!Has(names, t->plural)) st->missing.push_back(TypeName(*t));
        } else if (r.status == 404) {
          for (const auto* t : types) st->missing.push_back(TypeName(*t));
        } else {
          // Refused or reset connections pass; a TLS failure (curl's text
          // names SSL or the certificate) does not.
          bool tls =
              r.error.find("SSL") != std::string::npos || r.error.find("certificate") != std::string::npos;
          if ((r.status != 0 && r.status != 429 && r.status < 500) || tls) st->permanent = true;
          st->errors.push_back(recon::StrCat(
              "discovery ", path, ": ",
              r.error.empty() ? recon::StrCat("HTTP ", r.status, " (", StatusError(r.status, r.body), ")")
                              : recon::StrCat("transport: ", r.error)));
        }
        if (--st->left == 0) st->done.set_value();
      });
    }
  });
  auto fut = st->done.get_future();
  if (fut.wait_for(std::chrono::milliseconds(options_.start_timeout_ms)) != std::future_status::ready) {
    return absl::DeadlineExceededError(recon::StrCat("discovery at ", options_.rest.server,
                                                     " did not answer within ",
                                                     options_.start_timeout_ms / 1000, " s"));
  }
  if (!st->errors.empty()) {
    return st->permanent ? absl::FailedPreconditionError(st->errors.front())
                         : absl::UnavailableError(st->errors.front());
  }
  // Types of a group the cluster may lack are dropped from the watches.
  std::set<std::string> optional_gone;
  std::erase_if(st->missing, [&](const std::string& m) {
    for (const auto& t : types_) {
      if (TypeName(t) != m || !options_.optional_groups.contains(t.group)) continue;
      unserved_.insert({t.group, t.kind});
      optional_gone.insert(t.group);
      return true;
    }
    return false;
  });
  for (const auto& g : optional_gone)
    spdlog::warn("k8s: the cluster does not serve {}: {}", g, options_.optional_groups.at(g));
  if (!st->missing.empty()) {
    std::string msg;
    for (const auto& m : st->missing) {
      auto d = options_.domains.find(m);
      recon::StrAppend(&msg, msg.empty() ? "" : "; ", "resource ", m,
                       d == options_.domains.end() ? "" : recon::StrCat(" (", d->second, ")"),
                       " not served by the cluster");
    }
    return absl::FailedPreconditionError(msg);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<records::EventRecord>> K8sClusterAdapter::Start(const engine::World& last_seen) {
  if (started_) return absl::FailedPreconditionError("k8s adapter: Start called twice");
  started_ = true;
  for (const auto& use : options_.resources) types_.push_back(use.type);
  http_ = std::make_unique<http::HttpClient>(loop_, options_.rest);
  api_ = std::make_unique<http::PacedClient>(loop_, *http_, options_.api);
  for (const auto& use : options_.resources) {
    if (!Has(use.verbs, "watch")) continue;
    reflectors_.push_back(std::make_unique<Reflector>(
        loop_, *api_, use.type, options_.reflector, rng_, clock_,
        [this](std::vector<records::EventRecord> events) { Deliver(std::move(events)); }));
    if (seen_ && seen_wanted_ && seen_wanted_(use.type.group, use.type.kind))
      reflectors_.back()->SetSeenUnchanged(seen_);
    reflectors_.back()->SetFatal([this](const std::string& why) {
      spdlog::error("k8s: {}", why);
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (health_.ok()) health_ = absl::UnauthenticatedError(why);
      }
      cv_.notify_all();
      Wake();
    });
  }
  loop_.Start();
  spdlog::info("k8s: cluster {}", options_.rest.Describe());
  if (auto s = Discover(); !s.ok()) return s;
  std::erase_if(reflectors_, [this](const std::unique_ptr<Reflector>& r) {
    return unserved_.contains({r->type().group, r->type().kind});
  });

  // What the log already holds: the first lists are diffed against it, so a
  // restarted agent gets only what changed while it was away.
  for (auto& r : reflectors_) {
    ObjectCache known;
    for (const engine::Object* o : last_seen.List(r->type().group, r->type().kind)) {
      ListedObject lo;
      lo.id.group = std::string(o->group());
      lo.id.version = std::string(o->version());
      lo.id.kind = std::string(o->kind());
      lo.id.ns = std::string(o->ns());
      lo.id.name = std::string(o->name());
      lo.id.uid = engine::GetString(o->json(), {"metadata", "uid"});
      lo.id.resource_version = engine::GetString(o->json(), {"metadata", "resourceVersion"});
      lo.body = std::string(o->body());
      known.emplace(std::make_pair(lo.id.ns, lo.id.name), std::move(lo));
    }
    r->Seed(std::move(known));
  }
  if (options_.leader_election) {
    elector_ = std::make_unique<LeaderElector>(options_.lease);
    loop_.Post([this] { LeaseStep(); });
  } else {
    leading_ = true;
    term_ = 0;
  }
  loop_.Post([this] {
    for (auto& r : reflectors_) r->Start();
  });
  if (options_.content_poll_ms > 0 && !options_.content_sources.empty()) {
    for (const auto& e : options_.preamble)
      if (e.type == records::EventType::kContent) content_digests_[e.content_name] = e.content_digest;
    loop_.After(options_.content_poll_ms, [this] { PollContent(); });
  }

  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.start_timeout_ms);
  std::unique_lock<std::mutex> lock(mu_);
  auto all_synced = [this] {
    for (const auto& r : reflectors_)
      if (!r->synced()) return false;
    return true;
  };
  if (!cv_.wait_until(lock, deadline, [&] { return all_synced() || !health_.ok(); })) {
    std::string msg;
    for (const auto& r : reflectors_) {
      if (r->synced()) continue;
      std::string err = r->last_error();
      recon::StrAppend(&msg, msg.empty() ? "" : "; ", "initial list of ", r->Name(),
                       " did not complete within ", options_.start_timeout_ms / 1000, " s",
                       err.empty() ? "" : ": ", err);
    }
    return absl::DeadlineExceededError(msg);
  }
  if (!health_.ok()) return health_;
  std::vector<records::EventRecord> out;
  int64_t now = clock_.NowNs();
  for (auto e : options_.preamble) {
    if (e.time_ns == 0) e.time_ns = now;
    out.push_back(std::move(e));
  }
  // The initial lists between `synced: false` and `synced: true` (DESIGN):
  // until the last of them is reduced no domain decides anything from an
  // object's absence — after a restart the world still holds what the
  // last run saw, and the relist's Deleted events are in this batch too.
  records::EventRecord unsynced;
  unsynced.time_ns = now;
  unsynced.type = records::EventType::kCluster;
  unsynced.cluster_facts = R"({"synced":false})";
  out.push_back(std::move(unsynced));
  for (auto& e : out_) out.push_back(std::move(e));
  out_.clear();
  engine::Json facts = engine::Json::object();
  if (!options_.cluster_facts.empty()) {
    auto parsed = engine::ParseJson(options_.cluster_facts);
    if (!parsed.ok() || !parsed->is_object())
      return absl::InvalidArgumentError(
          recon::StrCat("cluster facts: expected a JSON object: ", options_.cluster_facts));
    facts = std::move(*parsed);
  }
  facts["synced"] = true;
  records::EventRecord c;
  c.time_ns = clock_.NowNs();
  c.type = records::EventType::kCluster;
  c.cluster_facts = engine::Dump(facts);
  out.push_back(std::move(c));
  return out;
}

void K8sClusterAdapter::Apply(const records::ActionRecord& action) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++pending_;
  }
  if (action.verb == "probe") {
    loop_.Post([this, a = action] { Probe(a); });
    return;
  }
  // The term the action is issued under travels with it (the fencing token).
  Write w{action, term_.load()};
  loop_.Post([this, w = std::move(w)] { Submit(w); });
}

std::vector<records::EventRecord> K8sClusterAdapter::Poll(int64_t now_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<records::EventRecord> events;
  events.swap(out_);
  return events;
}

std::optional<int64_t> K8sClusterAdapter::NextDueNs() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!out_.empty()) return clock_.NowNs();
  return std::nullopt;
}

bool K8sClusterAdapter::HasPendingWork() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pending_ > 0 || !out_.empty();
}

bool K8sClusterAdapter::Ready() const {
  for (const auto& r : reflectors_)
    if (!r->synced()) return false;
  return started_ && leading_.load();
}

absl::Status K8sClusterAdapter::Health() const {
  std::lock_guard<std::mutex> lock(mu_);
  return health_;
}

const Reflector* K8sClusterAdapter::reflector(std::string_view plural) const {
  for (const auto& r : reflectors_)
    if (r->type().plural == plural) return r.get();
  return nullptr;
}

void K8sClusterAdapter::Shutdown() {
  if (!started_ || shut_down_.exchange(true)) return;
  auto released = std::make_shared<std::promise<void>>();
  loop_.Post([this, released] {
    for (auto& r : reflectors_) r->Stop();
    auto finish = [this, released] {
      api_->Shutdown();
      http_->Close();
      released->set_value();
    };
    std::optional<LeaderElector::Write> w;
    if (elector_) w = elector_->Release(clock_.NowNs());
    leading_ = false;
    term_ = -1;
    if (!w) {
      finish();
      return;
    }
    // Released so a standby takes over at once instead of after 15 s.
    const engine::ResourceType& lease_type = kLeaseType;
    http::HttpRequest put;
    put.method = "PUT";
    put.url =
        WithFieldManager(api_->Url(ObjectPath(lease_type, elector_->config().ns, elector_->config().name)));
    put.body = w->body;
    put.timeout_ms = 3000;
    http_->Send(std::move(put), [finish](http::HttpResponse r) {
      if (r.status / 100 != 2) spdlog::warn("k8s: releasing the leader lease: HTTP {} {}", r.status, r.error);
      finish();
    });
  });
  released->get_future().wait_for(std::chrono::seconds(5));
  loop_.Stop();
}

}  // namespace recon::k8s
