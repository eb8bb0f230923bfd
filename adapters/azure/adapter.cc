#include "adapters/azure/adapter.h"

#include <algorithm>
#include <cctype>
#include <future>

#include "absl/strings/ascii.h"
#include "base/strings.h"
#include "engine/emit.h"
#include "engine/json.h"
#include "spdlog/spdlog.h"

namespace recon::azure {
namespace {

std::string Lowered(std::string_view s) { return absl::AsciiStrToLower(Av(s)); }

bool IsCredentialsSecret(const records::EventRecord& e) {
  return (e.type == records::EventType::kAdded || e.type == records::EventType::kModified) &&
         e.object.group.empty() && e.object.kind == "Secret" && e.object.ns == kCredentialsNamespace &&
         e.object.name == kCredentialsSecret;
}

}  // namespace

AzureClusterAdapter::AzureClusterAdapter(runtime::ClusterAdapter& inner, AzureOptions options,
                                         const runtime::TimeSource& clock, runtime::Metrics* metrics)
    : inner_(inner), options_(std::move(options)), clock_(clock), metrics_(metrics) {
  if (metrics_) {
    metrics_->Declare("recon_arm_polls_total", "counter", "rounds of ARM reads (the poll timer, first read)");
    metrics_->Declare("recon_arm_reads_total", "counter",
                      "ARM resource reads by result (changed, unchanged, deleted, error)");
  }
}

AzureClusterAdapter::~AzureClusterAdapter() { Shutdown(); }

uint64_t AzureClusterAdapter::token_requests() const {
  auto p = std::make_shared<std::promise<uint64_t>>();
  auto f = p->get_future();
  const_cast<http::IoLoop&>(loop_).Post([this, p] { p->set_value(arm_->token_requests()); });
  return f.wait_for(std::chrono::seconds(5)) == std::future_status::ready ? f.get() : 0;
}

void AzureClusterAdapter::SetWakeup(std::function<void()> wake) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    wake_ = wake;
  }
  inner_.SetWakeup(std::move(wake));
}

void AzureClusterAdapter::Wake() {
  std::function<void()> wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    wake = wake_;
  }
  if (wake) wake();
}

void AzureClusterAdapter::SetSeenUnchanged(WantedType wanted, SeenUnchanged seen) {
  // A restarted agent gets no event for an unchanged credentials Secret:
  // its values arrive here instead (never appended).
  auto want = [wanted](std::string_view group, std::string_view kind) {
    return (group.empty() && kind == "Secret") || (wanted && wanted(group, kind));
  };
  inner_.SetSeenUnchanged(want, [this, wanted, seen](std::vector<records::EventRecord> events) {
    TakeCredentials(events);
    if (!seen || !wanted) return;
    std::vector<records::EventRecord> pass;
    for (auto& e : events)
      if (wanted(e.object.group, e.object.kind)) pass.push_back(std::move(e));
    if (!pass.empty()) seen(std::move(pass));
  });
}

void AzureClusterAdapter::TakeCredentials(const std::vector<records::EventRecord>& events) {
  if (options_.credentials || !options_.credentials_error.empty()) return;
  for (const auto& e : events) {
    if (!IsCredentialsSecret(e)) continue;
    // Events from the Kubernetes adapter are not redacted yet: the values
    // are read here, in memory, and go nowhere but the token request.
    auto j = engine::ParseJson(e.body);
    if (!j.ok()) continue;
    auto c = CredentialsFromSecret(*j, nullptr);
    std::lock_guard<std::mutex> lock(mu_);
    if (!c.ok()) {
      spdlog::warn("azure: {}", Sv(c.status().message()));
      continue;
    }
    if (secret_creds_ && *secret_creds_ == *c) continue;
    spdlog::info("azure: credentials from Secret {}/{} ({})", kCredentialsNamespace, kCredentialsSecret,
                 c->Describe());
    secret_creds_ = *c;
    loop_.Post([this, c = *c] { arm_->SetCredentials(c); });
  }
}

absl::StatusOr<std::vector<records::EventRecord>> AzureClusterAdapter::Start(const engine::World& last_seen) {
  if (started_) return absl::FailedPreconditionError("azure adapter: Start called twice");
  started_ = true;
  world_ = &last_seen;
  // What the log holds: a restart delivers only what changed since.
  for (std::string_view kind : {"Subnet", "NetworkSecurityGroup"}) {
    for (const engine::Object* o : last_seen.List(kAzureGroup, kind)) {
      known_[Lowered(o->name())] = {std::string(o->name()), std::string(kind),
                                    engine::GetString(o->json(), {"metadata", "resourceVersion"}, "?")};
    }
  }
  arm_ = std::make_unique<ArmClient>(loop_, options_.arm, clock_, metrics_);
  if (options_.credentials) {
    arm_->SetCredentials(*options_.credentials);
    spdlog::info("azure: credentials ({})", options_.credentials->Describe());
  } else if (!options_.credentials_error.empty()) {
    arm_->SetCredentialsError(options_.credentials_error);
    spdlog::warn("azure: no credentials in the environment: {}", options_.credentials_error);
  }
  loop_.Start();
  spdlog::info("azure: ARM at {}, AAD at {}", options_.arm.arm_endpoint, options_.arm.aad_endpoint);
  auto initial = inner_.Start(last_seen);
  if (initial.ok()) TakeCredentials(*initial);
  return initial;
}

void AzureClusterAdapter::Apply(const records::ActionRecord& action) {
  bool write = action.object.group == kAzureGroup && action.verb != "setTimer" && action.verb != "probe";
  bool sp = action.verb == "probe" && action.probe == options_.sp_probe;
  if (!write && !sp) {
    inner_.Apply(action);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++pending_;
  }
  if (write) {
    loop_.Post([this, a = action] { Write(a); });
  } else {
    loop_.Post([this, a = action] { Probe(a); });
  }
}

std::vector<records::EventRecord> AzureClusterAdapter::Poll(int64_t now_ns) {
  std::vector<records::EventRecord> events = inner_.Poll(now_ns);
  TakeCredentials(events);
  if (!first_read_ && world_ != nullptr && world_->Synced()) {
    first_read_ = true;
    PollRound({});
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& e : out_) events.push_back(std::move(e));
  out_.clear();
  return events;
}

std::vector<records::EventRecord> AzureClusterAdapter::TimersDue(std::vector<records::EventRecord> due) {
  std::vector<records::EventRecord> now, polls;
  for (auto& e : due) (e.timer == options_.poll_timer ? polls : now).push_back(std::move(e));
  if (!polls.empty()) PollRound(std::move(polls));
  return inner_.TimersDue(std::move(now));
}

void AzureClusterAdapter::PollRound(std::vector<records::EventRecord> timers) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (poll_running_) {
      // The running poll's answers are as fresh: they go out first.
      for (auto& t : timers) held_timers_.push_back(std::move(t));
      return;
    }
    poll_running_ = true;
  }
  // The runtime's world, on the runtime's thread.
  std::vector<ArmRef> refs = options_.reads ? options_.reads(*world_) : std::vector<ArmRef>{};
  loop_.Post([this, refs = std::move(refs), timers = std::move(timers)]() mutable {
    StartPoll(std::move(refs), std::move(timers));
  });
}

std::optional<int64_t> AzureClusterAdapter::NextDueNs() const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!out_.empty()) return clock_.NowNs();
  }
  if (!first_read_ && world_ != nullptr && world_->Synced()) return clock_.NowNs();
  return inner_.NextDueNs();
}

bool AzureClusterAdapter::HasPendingWork() const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (pending_ > 0 || poll_running_ || !out_.empty()) return true;
  }
  return inner_.HasPendingWork();
}

void AzureClusterAdapter::Deliver(std::vector<records::EventRecord> events, bool done_one) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (done_one) --pending_;
    for (auto& e : events) out_.push_back(std::move(e));
  }
  Wake();
}

// --- loop thread ---

void AzureClusterAdapter::StartPoll(std::vector<ArmRef> refs, std::vector<records::EventRecord> held) {
  ++polls_;
  if (metrics_) metrics_->Add("recon_arm_polls_total", {});
  struct State {
    std::vector<ArmRef> refs;
    std::vector<std::optional<records::EventRecord>> events;
    std::vector<records::EventRecord> timers;
    size_t left = 0;
  };
  auto st = std::make_shared<State>();
  st->refs = std::move(refs);
  st->events.resize(st->refs.size());
  st->timers = std::move(held);
  st->left = st->refs.size();
  auto finish = [this, st] {
    std::vector<records::EventRecord> out;
    for (auto& e : st->events)
      if (e) out.push_back(std::move(*e));
    int64_t now = clock_.NowNs();
    {
      std::lock_guard<std::mutex> lock(mu_);
      poll_running_ = false;
      for (auto& t : held_timers_) st->timers.push_back(std::move(t));
      held_timers_.clear();
    }
    for (auto& t : st->timers) {
      // After the objects it waited for (and never before them in time).
      t.time_ns = std::max(t.time_ns, now);
      out.push_back(std::move(t));
    }
    Deliver(std::move(out), false);
  };
  if (st->refs.empty()) return finish();
  for (size_t i = 0; i < st->refs.size(); ++i) {
    arm_->Get(st->refs[i].id, [this, st, i, finish](ArmResult r) {
      st->events[i] = Observe(st->refs[i], r);
      if (--st->left == 0) finish();
    });
  }
}

std::optional<records::EventRecord> AzureClusterAdapter::Observe(const ArmRef& ref, const ArmResult& r) {
  auto count = [this](const char* result) {
    if (metrics_) metrics_->Add("recon_arm_reads_total", {{"result", result}});
  };
  records::EventRecord e;
  e.time_ns = clock_.NowNs();
  e.object.group = std::string(kAzureGroup);
  e.object.version = "v1";
  e.object.kind = ref.kind;
  if (r.status == 404) {
    auto it = known_.find(Lowered(ref.id));
    if (it == known_.end()) {
      known_[Lowered(ref.id)] = {ref.id, ref.kind, ""};
      count("unchanged");
      return std::nullopt;
    }
    if (it->second.etag.empty()) {
      count("unchanged");
      return std::nullopt;
    }
    it->second.etag.clear();
    count("deleted");
    e.type = records::EventType::kDeleted;
    e.object.name = it->second.name;
    e.body = engine::Dump(engine::Json{{"apiVersion", "network.azure.com/v1"},
                                       {"kind", ref.kind},
                                       {"metadata", {{"name", it->second.name}}}});
    return e;
  }
  auto j = r.status == 200 ? engine::ParseJson(r.body) : absl::StatusOr<engine::Json>(absl::UnknownError(""));
  if (!j.ok() || !j->is_object()) {
    count("error");
    spdlog::debug("azure: GET {}: {}", ref.id, r.Error());
    return std::nullopt;
  }
  std::string id = engine::GetString(*j, {"id"}, ref.id);
  std::string etag = engine::GetString(*j, {"etag"});
  const engine::Json& props = engine::Path(*j, {"properties"});
  // A resource without an etag changes when its properties do.
  if (etag.empty()) etag = recon::StrCat("sha:", std::hash<std::string>{}(engine::Dump(props)));
  Known& k = known_[Lowered(id)];
  bool existed = !k.etag.empty();
  if (existed && k.etag == etag && k.name == id) {
    count("unchanged");
    return std::nullopt;
  }
  k = {id, ref.kind, etag};
  count("changed");
  e.type = existed ? records::EventType::kModified : records::EventType::kAdded;
  e.object.name = id;
  e.object.resource_version = etag;
  engine::Json obj{{"apiVersion", "network.azure.com/v1"},
                   {"kind", ref.kind},
                   {"metadata", {{"name", id}, {"resourceVersion", etag}}},
                   {"spec", props.is_object() ? props : engine::Json::object()}};
  e.body = engine::Dump(obj);
  return e;
}

void AzureClusterAdapter::Write(records::ActionRecord a) {
  auto result = [this, a](const ArmResult& r, std::optional<records::EventRecord> echo) {
    std::vector<records::EventRecord> out;
    std::string etag;
    if (echo) {
      etag = echo->object.resource_version;
      out.push_back(std::move(*echo));
    } else if (auto it = known_.find(Lowered(a.object.name)); it != known_.end()) {
      etag = it->second.etag;
    }
    records::EventRecord e;
    e.time_ns = clock_.NowNs();
    e.type = records::EventType::kActionResult;
    e.action_result.action = engine::ActionId(a.cause_seq, a.index);
    e.action_result.ok = r.ok();
    if (r.status > 0) e.action_result.status = r.status;
    if (r.ok()) {
      e.action_result.resource_version = etag;
    } else {
      e.action_result.error = r.Error();
    }
    out.push_back(std::move(e));
    Deliver(std::move(out), true);
  };
  if (a.verb != "update" && a.verb != "create") {
    ArmResult r;
    r.transport = recon::StrCat("Unsupported: verb \"", a.verb, "\" is not carried out by the ARM adapter");
    return result(r, std::nullopt);
  }
  auto j = engine::ParseJson(a.body);
  if (!j.ok() || !j->is_object()) {
    ArmResult r;
    r.transport = "Invalid: the action's object is not JSON";
    return result(r, std::nullopt);
  }
  std::string etag = engine::GetString(*j, {"metadata", "resourceVersion"});
  const engine::Json& spec = engine::Path(*j, {"spec"});
  engine::Json body{{"properties", spec.is_object() ? spec : engine::Json::object()}};
  ArmRef ref{a.object.kind, a.object.name};
  arm_->Put(ref.id, engine::Dump(body), etag, [this, ref, result](ArmResult r) {
    // Read back, whatever the answer: after a success the new state, after
    // a 412 the state that beat us; either goes before the result.
    arm_->Get(ref.id, [this, ref, r, result](ArmResult g) {
      std::optional<records::EventRecord> echo;
      if (g.status == 200 || g.status == 404) echo = Observe(ref, g);
      result(r, std::move(echo));
    });
  });
}

void AzureClusterAdapter::Probe(records::ActionRecord a) {
  arm_->Token(a.target, true, [this, a](absl::StatusOr<AccessToken> t) {
    records::EventRecord e;
    e.time_ns = clock_.NowNs();
    e.type = records::EventType::kProbe;
    e.probe.name = a.probe;
    e.probe.target = a.target;
    e.probe.ok = t.ok();
    if (t.ok()) {
      e.probe.data = TokenClaims(t->token);  // claims only, never the token
    } else {
      e.probe.detail = std::string(Sv(t.status().message()));
    }
    Deliver({std::move(e)}, true);
  });
}

void AzureClusterAdapter::Shutdown() {
  if (shut_down_.exchange(true)) return;
  inner_.Shutdown();
  if (!started_) return;
  loop_.Post([this] { arm_->Shutdown(); });
  loop_.Stop();
}

}  // namespace recon::azure
