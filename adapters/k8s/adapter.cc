#include "adapters/k8s/adapter.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <thread>

#include "adapters/k8s/objects.h"
#include "base/strings.h"
#include "engine/emit.h"
#include "engine/json.h"
#include "spdlog/spdlog.h"

namespace recon::k8s {
namespace {

// importImage actions are created under image.openshift.io's
// imagestreamimports, which no domain watches.
const engine::ResourceType kImageStreamImport{
    "image.openshift.io", "v1", "ImageStreamImport", "imagestreamimports", true, false, {}};
const engine::ResourceType kLease{"coordination.k8s.io", "v1", "Lease", "leases", true, false, {}};

bool Has(const std::vector<std::string>& v, std::string_view x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string TypeName(const engine::ResourceType& t) {
  return t.group.empty() ? t.plural : recon::StrCat(t.plural, ".", t.group);
}

}  // namespace

K8sClusterAdapter::K8sClusterAdapter(K8sOptions options, const engine::TimeSource& clock)
    : options_(std::move(options)), clock_(clock), rng_(options_.seed), write_backoff_(rng_) {}

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

void K8sClusterAdapter::Deliver(std::vector<store::EventRecord> events) {
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
      HttpRequest req;
      std::string path = GroupVersionPath(gv.first, gv.second);
      req.url = api_->Url(path);
      api_->Send(std::move(req), [st, types = types, path](HttpResponse r) {
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

absl::StatusOr<std::vector<store::EventRecord>> K8sClusterAdapter::Start(const engine::World& last_seen) {
  if (started_) return absl::FailedPreconditionError("k8s adapter: Start called twice");
  started_ = true;
  for (const auto& use : options_.resources) types_.push_back(use.type);
  http_ = std::make_unique<HttpClient>(loop_, options_.rest);
  api_ = std::make_unique<Api>(loop_, *http_, options_.api);
  for (const auto& use : options_.resources) {
    if (!Has(use.verbs, "watch")) continue;
    reflectors_.push_back(std::make_unique<Reflector>(
        loop_, *api_, use.type, options_.reflector, rng_, clock_,
        [this](std::vector<store::EventRecord> events) { Deliver(std::move(events)); }));
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
      if (e.type == store::EventType::kContent) content_digests_[e.content_name] = e.content_digest;
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
  std::vector<store::EventRecord> out;
  int64_t now = clock_.NowNs();
  for (auto e : options_.preamble) {
    if (e.time_ns == 0) e.time_ns = now;
    out.push_back(std::move(e));
  }
  // The initial lists between `synced: false` and `synced: true` (DESIGN):
  // until the last of them is reduced no domain decides anything from an
  // object's absence — after a restart the world still holds what the
  // last run saw, and the relist's Deleted events are in this batch too.
  store::EventRecord unsynced;
  unsynced.time_ns = now;
  unsynced.type = store::EventType::kCluster;
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
  store::EventRecord c;
  c.time_ns = clock_.NowNs();
  c.type = store::EventType::kCluster;
  c.cluster_facts = engine::Dump(facts);
  out.push_back(std::move(c));
  return out;
}

void K8sClusterAdapter::Apply(const store::ActionRecord& action) {
  if (action.verb == "setTimer") {
    // The adapter owns timers; a later setTimer of the same name replaces
    // the pending one.
    std::lock_guard<std::mutex> lock(mu_);
    timers_[action.timer] = action.at_ns;
    return;
  }
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

std::vector<store::EventRecord> K8sClusterAdapter::Poll(int64_t now_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<store::EventRecord> events;
  events.swap(out_);
  std::vector<std::pair<int64_t, std::string>> due;
  for (auto it = timers_.begin(); it != timers_.end();) {
    if (it->second <= now_ns) {
      due.emplace_back(it->second, it->first);
      it = timers_.erase(it);
    } else {
      ++it;
    }
  }
  std::sort(due.begin(), due.end());
  for (auto& [at, name] : due) {
    store::EventRecord e;
    e.time_ns = now_ns;
    e.type = store::EventType::kTimer;
    e.timer = name;
    events.push_back(std::move(e));
  }
  return events;
}

std::optional<int64_t> K8sClusterAdapter::NextDueNs() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!out_.empty()) return clock_.NowNs();
  std::optional<int64_t> next;
  for (const auto& [name, at] : timers_)
    if (!next || at < *next) next = at;
  return next;
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

// --- leader election (loop thread) ---

void K8sClusterAdapter::LeaseStep() {
  if (shut_down_ || !elector_) return;
  int64_t now = clock_.NowNs();
  elector_->Tick(now);
  AfterLeaseChange();
  if (elector_->state() == LeaderElector::State::kLost) return;
  auto again = [this] { loop_.After(options_.lease.retry_period_ns / 1'000'000, [this] { LeaseStep(); }); };
  if (pause_renewal_) {
    again();
    return;
  }
  const LeaseConfig& c = elector_->config();
  const engine::ResourceType& lease_type = kLease;
  HttpRequest get;
  get.url = api_->Url(ObjectPath(lease_type, c.ns, c.name));
  get.timeout_ms = c.renew_deadline_ns / 1'000'000;
  api_->Send(std::move(get), [this, again](HttpResponse r) {
    if (shut_down_ || r.error == "cancelled") return;
    std::optional<LeaseRecord> lease;
    if (r.status == 200) {
      LeaseRecord rec;
      if (!ParseLease(r.body, &rec).ok()) {
        again();
        return;
      }
      lease = rec;
    } else if (r.status != 404) {
      spdlog::warn("k8s: reading the leader lease: {}",
                   r.error.empty() ? StatusError(r.status, r.body) : recon::StrCat("transport: ", r.error));
      elector_->Tick(clock_.NowNs());
      AfterLeaseChange();
      again();
      return;
    }
    auto w = elector_->Observe(lease, clock_.NowNs());
    AfterLeaseChange();
    if (!w) {
      if (elector_->state() != LeaderElector::State::kLost) again();
      return;
    }
    const LeaseConfig& c = elector_->config();
    HttpRequest put;
    put.method = w->create ? "POST" : "PUT";
    put.url = WithFieldManager(
        api_->Url(w->create ? CollectionPath(kLease, c.ns) : ObjectPath(kLease, c.ns, c.name)));
    put.body = w->body;
    put.timeout_ms = c.renew_deadline_ns / 1'000'000;
    api_->Send(std::move(put), [this, again](HttpResponse r) {
      if (shut_down_ || r.error == "cancelled") return;
      bool ok = r.error.empty() && r.status / 100 == 2;
      std::optional<LeaseRecord> answer;
      LeaseRecord rec;
      if (ok && ParseLease(r.body, &rec).ok()) answer = rec;
      elector_->WriteResult(ok, answer, clock_.NowNs());
      AfterLeaseChange();
      if (elector_->state() != LeaderElector::State::kLost) again();
    });
  });
}

std::string K8sClusterAdapter::WithFieldManager(std::string url) const {
  if (options_.field_manager.empty()) return url;
  return recon::StrCat(url, url.find('?') == std::string::npos ? "?" : "&",
                       "fieldManager=", UrlEncode(options_.field_manager));
}

void K8sClusterAdapter::AfterLeaseChange() {
  bool lead = elector_->leading();
  bool was = leading_.exchange(lead);
  term_ = elector_->token();
  if (elector_->state() == LeaderElector::State::kLost) {
    bool first = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (health_.ok()) {
        health_ = absl::AbortedError(recon::StrCat("leader election lost: ", elector_->lost_reason()));
        first = true;
      }
    }
    if (first) {
      spdlog::error("k8s: leader election lost: {}", elector_->lost_reason());
      std::deque<Write> held;
      held.swap(held_);
      for (auto& w : held) Refuse(w, "leadership lost before it was sent");
      cv_.notify_all();
      Wake();
    }
    return;
  }
  if (lead && !was) {
    spdlog::info("k8s: leader lease {}/{} acquired as {} (term {})", elector_->config().ns,
                 elector_->config().name, elector_->config().identity, elector_->token());
    std::deque<Write> held;
    held.swap(held_);
    for (auto& w : held) Submit(std::move(w));
    Wake();  // Ready() changed
  }
}

void K8sClusterAdapter::PauseLeaseRenewal(bool pause) {
  loop_.Post([this, pause] { pause_renewal_ = pause; });
}

void K8sClusterAdapter::HoldWrites(bool hold) {
  loop_.Post([this, hold] {
    hold_writes_ = hold;
    if (hold) return;
    std::deque<Write> held;
    held.swap(held_);
    for (auto& w : held) Submit(std::move(w));
  });
}

const Reflector* K8sClusterAdapter::reflector(std::string_view plural) const {
  for (const auto& r : reflectors_)
    if (r->type().plural == plural) return r.get();
  return nullptr;
}

// --- writes (loop thread) ---

bool K8sClusterAdapter::MayWrite(int64_t term) const {
  if (!elector_) return true;
  elector_->Tick(clock_.NowNs());
  // The current term is the newest leaseTransitions seen; a write issued
  // under an older one is a deposed leader's and is not sent.
  return elector_->leading() && term == elector_->token() && term >= elector_->observed_transitions();
}

void K8sClusterAdapter::Submit(Write w) {
  bool lost = elector_ && elector_->state() == LeaderElector::State::kLost;
  if (lost) {
    Refuse(w, "leadership lost before it was sent");
    return;
  }
  if (w.term < 0 && elector_ && elector_->leading()) w.term = elector_->token();
  // Issued while standing by: sent under the term we acquire next.
  if (hold_writes_ || w.term < 0) {
    held_.push_back(std::move(w));
    return;
  }
  Send(std::move(w), 0);
}

void K8sClusterAdapter::Refuse(const Write& w, const std::string& why) {
  ++refused_;
  spdlog::warn("k8s: not sending {} {} {} (term {}): {}", w.action.verb, w.action.object.kind,
               w.action.object.name, w.term, why);
  HttpResponse r;
  r.error = recon::StrCat("Fenced: issued under lease term ", w.term, ", current term ",
                          elector_ ? elector_->observed_transitions() : 0, "; ", why);
  Result(w.action, r);
}

void K8sClusterAdapter::Send(Write w, int attempt) {
  const store::ActionRecord& a = w.action;
  const engine::ResourceType* type =
      a.verb == "importImage" ? &kImageStreamImport : TypeOf(a.object.group, a.object.kind);
  if (!type) {
    HttpResponse r;
    r.error = recon::StrCat("NotServed: kind ", a.object.kind, " of group \"", a.object.group,
                            "\" is not among the resources the enabled domains declared");
    Result(a, r);
    return;
  }
  if (!MayWrite(w.term)) {
    AfterLeaseChange();
    Refuse(w, "the lease moved on");
    return;
  }
  HttpRequest req;
  const std::string& ns = a.object.ns;
  if (a.verb == "create" || a.verb == "importImage") {
    req.method = "POST";
    req.url = api_->Url(CollectionPath(*type, ns));
    auto j = engine::ParseJson(a.body);
    if (j.ok() && j->is_object()) {
      // The server refuses a create that names a resourceVersion.
      if (auto md = j->find("metadata"); md != j->end() && md->is_object()) md->erase("resourceVersion");
      req.body = engine::Dump(*j);
    } else {
      req.body = a.body;
    }
  } else if (a.verb == "update") {
    req.method = "PUT";
    req.url = api_->Url(ObjectPath(*type, ns, a.object.name));
    req.body = a.body;
  } else if (a.verb == "updateStatus") {
    req.method = "PUT";
    req.url = api_->Url(ObjectPath(*type, ns, a.object.name) + (type->status_subresource ? "/status" : ""));
    req.body = a.body;
  } else if (a.verb == "patch") {
    req.method = "PATCH";
    req.url = api_->Url(ObjectPath(*type, ns, a.object.name));
    req.content_type = "application/merge-patch+json";
    req.body = a.body;
  } else if (a.verb == "delete") {
    req.method = "DELETE";
    req.url = api_->Url(ObjectPath(*type, ns, a.object.name));
    auto j = engine::ParseJson(a.body);
    engine::Json pre = engine::Json::object();
    if (j.ok()) {
      std::string uid = engine::GetString(*j, {"metadata", "uid"});
      std::string rv = engine::GetString(*j, {"metadata", "resourceVersion"});
      if (!uid.empty()) pre["uid"] = uid;
      if (!rv.empty()) pre["resourceVersion"] = rv;
    }
    if (!pre.empty()) {
      engine::Json opts = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}, {"preconditions", pre}};
      req.body = engine::Dump(opts);
    }
  } else {
    HttpResponse r;
    r.error = recon::StrCat("Unsupported: verb \"", a.verb, "\" is not carried out by the k8s adapter");
    Result(a, r);
    return;
  }
  if (req.method != "DELETE") req.url = WithFieldManager(std::move(req.url));
  // Names the action in the request so a server (or an audit proxy) can tell
  // a retried action from a new one; the soak counts applications per id.
  req.headers.push_back(recon::StrCat("X-Recon-Action: ", engine::ActionId(a.cause_seq, a.index)));
  int64_t term = w.term;
  ++sent_;
  api_->Send(
      std::move(req),
      [this, w, attempt](HttpResponse r) {
        if (r.error == "cancelled") return;
        if (r.error == "fenced") {
          AfterLeaseChange();
          Refuse(w, "the lease moved on while it waited to be sent");
          return;
        }
        // No answer at all (connection refused, reset): try a few times
        // before reporting, as the runtime does not retry bare errors.
        if (r.status == 0 && attempt < 3 && !shut_down_) {
          int64_t delay = write_backoff_.Next(SteadyNowNs());
          loop_.After(delay / 1'000'000, [this, w, attempt] { Send(w, attempt + 1); });
          return;
        }
        Result(w.action, r);
      },
      [this, term] { return MayWrite(term); });
}

void K8sClusterAdapter::Result(const store::ActionRecord& a, const HttpResponse& r) {
  store::EventRecord e;
  e.time_ns = clock_.NowNs();
  e.type = store::EventType::kActionResult;
  e.action_result.action = engine::ActionId(a.cause_seq, a.index);
  e.action_result.ok = r.error.empty() && r.status / 100 == 2;
  if (r.status > 0) e.action_result.status = r.status;
  if (!e.action_result.ok) {
    e.action_result.error = !r.error.empty() && r.status == 0
                                ? (r.error.rfind("Fenced:", 0) == 0 || r.error.rfind("NotServed:", 0) == 0 ||
                                           r.error.rfind("Unsupported:", 0) == 0
                                       ? r.error
                                       : recon::StrCat("Transport: ", r.error))
                                : StatusError(r.status, r.body);
  } else if (!r.body.empty()) {
    // The written object as the server returned it: its resourceVersion is
    // how the engine tells this write's watch echo from others' changes.
    // (ObjectIdOf reads only the identity, not a whole tree per write.)
    if (auto id = ObjectIdOf(r.body); id.ok()) {
      e.action_result.resource_version = std::move(id->resource_version);
      e.action_result.uid = std::move(id->uid);
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    --pending_;
    out_.push_back(std::move(e));
  }
  cv_.notify_all();
  Wake();
}

// --- probes (loop thread) ---

void K8sClusterAdapter::Probe(store::ActionRecord a) {
  HttpRequest req;
  req.timeout_ms = options_.probe_timeout_ms;
  req.connect_timeout_ms = std::min<int64_t>(req.connect_timeout_ms, options_.probe_timeout_ms);
  bool via = !options_.probe_via.empty();
  req.cluster = via;  // the sim's probe endpoint is the API server: same credentials
  req.url = via ? recon::StrCat(options_.probe_via, "/recon-sim/v1/probe?name=", UrlEncode(a.probe),
                                "&target=", UrlEncode(a.target))
                : a.target;
  http_->Send(std::move(req), [this, a, via](HttpResponse r) {
    if (r.error == "cancelled") return;
    store::EventRecord e;
    e.time_ns = clock_.NowNs();
    e.type = store::EventType::kProbe;
    e.probe.name = a.probe;
    e.probe.target = a.target;
    if (via) {
      // The sim answers {"ok":..,"status":..,"detail":..,"data":..}.
      auto j = engine::ParseJson(r.body);
      if (r.status == 200 && j.ok() && j->is_object()) {
        const engine::Json& ok = engine::Path(*j, {"ok"});
        e.probe.ok = ok.is_boolean() && ok.get<bool>();
        const engine::Json& st = engine::Path(*j, {"status"});
        if (st.is_number_integer()) e.probe.status = st.get<int32_t>();
        e.probe.detail = engine::GetString(*j, {"detail"});
        const engine::Json& data = engine::Path(*j, {"data"});
        if (!data.is_null()) e.probe.data = engine::Dump(data);
      } else {
        e.probe.detail = r.error.empty() ? StatusError(r.status, r.body) : r.error;
      }
    } else {
      // Any HTTP answer means the target was reached.
      e.probe.ok = r.error.empty() && r.status > 0;
      if (r.status > 0) e.probe.status = r.status;
      e.probe.detail = r.error;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      --pending_;
      out_.push_back(std::move(e));
    }
    Wake();
  });
}

void K8sClusterAdapter::PollContent() {
  if (shut_down_) return;
  std::vector<store::EventRecord> events;
  for (const auto& src : options_.content_sources) {
    auto files = src.load();
    // Unreadable now (being replaced, say): the last content stands.
    if (!files.ok()) continue;
    std::string digest = store::ContentDigest(*files);
    std::string& last = content_digests_[src.name];
    if (digest == last) continue;
    last = digest;
    store::EventRecord c;
    c.time_ns = clock_.NowNs();
    c.type = store::EventType::kContent;
    c.content_name = src.name;
    c.content_digest = std::move(digest);
    c.content_files = std::move(*files);
    events.push_back(std::move(c));
  }
  if (!events.empty()) Deliver(std::move(events));
  loop_.After(options_.content_poll_ms, [this] { PollContent(); });
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
    const engine::ResourceType& lease_type = kLease;
    HttpRequest put;
    put.method = "PUT";
    put.url =
        WithFieldManager(api_->Url(ObjectPath(lease_type, elector_->config().ns, elector_->config().name)));
    put.body = w->body;
    put.timeout_ms = 3000;
    http_->Send(std::move(put), [finish](HttpResponse r) {
      if (r.status / 100 != 2) spdlog::warn("k8s: releasing the leader lease: HTTP {} {}", r.status, r.error);
      finish();
    });
  });
  released->get_future().wait_for(std::chrono::seconds(5));
  loop_.Stop();
}

}  // namespace recon::k8s
