#include "adapters/sim/api_server.h"

#include <uv.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_split.h"
#include "adapters/sim/faults.h"
#include "adapters/sim/http_patch.h"
#include "adapters/sim/http_selector.h"
#include "adapters/sim/http_server.h"
#include "adapters/sim/managed_fields.h"
#include "adapters/sim/protobuf.h"
#include "adapters/sim/server_resources.h"
#include "adapters/sim/simulator.h"
#include "base/strings.h"
#include "engine/time_format.h"

namespace recon::sim {
namespace {

// k8s.io/apimachinery's CompareKubeAwareVersionStrings as a "sorts before":
// v<major>[(alpha|beta)<minor>] forms first by stability, then major, then
// minor, all descending; any other string after them, in lexical order.
bool KubeVersionBefore(const std::string& a, const std::string& b) {
  struct Parsed {
    bool ok = false;
    int stability = 0;  // 2 GA, 1 beta, 0 alpha
    long major = 0, minor = 0;
  };
  auto parse = [](const std::string& v) {
    Parsed p;
    if (v.size() < 2 || v[0] != 'v' || !std::isdigit(static_cast<unsigned char>(v[1]))) return p;
    size_t i = 1;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i])))
      p.major = p.major * 10 + (v[i++] - '0');
    if (i == v.size()) {
      p.ok = true;
      p.stability = 2;
      return p;
    }
    std::string_view rest(v.data() + i, v.size() - i);
    if (rest.starts_with("alpha")) {
      rest.remove_prefix(5);
    } else if (rest.starts_with("beta")) {
      p.stability = 1;
      rest.remove_prefix(4);
    } else {
      return p;
    }
    if (rest.empty()) return p;
    for (char c : rest) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return p;
      p.minor = p.minor * 10 + (c - '0');
    }
    p.ok = true;
    return p;
  };
  Parsed x = parse(a), y = parse(b);
  if (x.ok != y.ok) return x.ok;
  if (!x.ok) return a < b;
  if (x.stability != y.stability) return x.stability > y.stability;
  if (x.major != y.major) return x.major > y.major;
  return x.minor > y.minor;
}

using ConnId = StreamingHttpServer::ConnId;
constexpr int kTickMs = 50;
constexpr size_t kMaxLog = 100000;

int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string ReasonFor(int status) {
  switch (status) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return "InternalError";
  }
}

Json StatusJson(int code, std::string_view reason, std::string_view message, const Json& details) {
  Json s = {{"kind", "Status"},
            {"apiVersion", "v1"},
            {"metadata", Json::object()},
            {"status", "Failure"},
            {"message", std::string(message)},
            {"reason", std::string(reason)}};
  if (!details.is_null()) s["details"] = details;
  s["code"] = code;
  return s;
}

HttpAnswer StatusAnswer(int code, std::string_view reason, std::string_view message,
                        const Json& details = Json()) {
  return JsonAnswer(code, StatusJson(code, reason, message, details));
}

uint64_t RvOf(const Json& object) {
  std::string rv = engine::GetString(object, {"metadata", "resourceVersion"});
  uint64_t n = 0;
  for (char c : rv) {
    if (c < '0' || c > '9') return 0;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n;
}

bool ParseUint(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 19) return false;
  uint64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = n;
  return true;
}

// Continue tokens: base64 of "rv\x1fepoch\x1fnamespace\x1fname" (the
// list's resourceVersion, the compaction epoch, the last item).
struct ContinueToken {
  uint64_t rv = 0, epoch = 0;
  std::string ns, name;
};

std::string EncodeContinue(const ContinueToken& t) {
  return absl::WebSafeBase64Escape(Av(recon::StrCat(t.rv, "\x1f", t.epoch, "\x1f", t.ns, "\x1f", t.name)));
}

bool DecodeContinue(const std::string& token, ContinueToken* t) {
  std::string raw;
  if (!absl::WebSafeBase64Unescape(Av(token), &raw)) return false;
  std::vector<std::string> parts = absl::StrSplit(raw, '\x1f');
  if (parts.size() != 4 || !ParseUint(parts[0], &t->rv) || !ParseUint(parts[1], &t->epoch)) return false;
  t->ns = parts[2];
  t->name = parts[3];
  return true;
}

bool IsTrue(const std::string& v) { return v == "1" || v == "true"; }

// The request's Kubernetes verb, for FailNext filters and the log.
struct Route {
  bool resource = false;
  const ServedResource* res = nullptr;
  std::string group, version, ns, name, sub;
  std::string verb;
};

}  // namespace

class ApiServer::Impl {
 public:
  Impl(const Scenario& scenario, ServeOptions options, std::vector<engine::ResourceType> resources)
      : scenario_(scenario),
        opts_(std::move(options)),
        table_(resources),
        drop_rng_(scenario.seed ^ 0xD209D209D209D209ull),
        fault_rng_(opts_.fault_seed ^ 0x5EED5EED5EED5EEDull) {}

  ~Impl() { Stop(); }

  absl::Status Init() {
    if (!(opts_.speed > 0)) return absl::InvalidArgumentError("speed: must be > 0");
    uv_loop_init(&loop_);
    loop_ready_ = true;
    if (opts_.api.crds != nullptr) {
      for (const crd::Kind* k : opts_.api.crds->kinds()) {
        table_.AddCrd(engine::ResourceType{k->group, k->version, k->kind, k->plural, k->namespaced,
                                           k->status_subresource, k->short_names},
                      k->printer_columns);
      }
    }
    sim_ = std::make_unique<Simulator>(scenario_, opts_.api);
    sim_->SetWatchSink([this](std::vector<store::EventRecord> events) { OnChanges(std::move(events)); });
    if (opts_.controller) sim_->SetController(opts_.controller);
    sim_->Start();
    floor_rv_ = sim_->objects().resource_version();
    for (const auto& [key, object] : sim_->objects().objects()) metadata_[key] = MetadataOf(object);
    real_start_ns_ = SteadyNs();
    virtual_start_ns_ = sim_->now();
    http_ = std::make_unique<StreamingHttpServer>(
        &loop_, [this](const HttpRequest& r, ConnId id) { return Handle(r, id); },
        [this](ConnId id) { watches_.erase(id); });
    auto port = http_->Listen(opts_.host, opts_.port);
    if (!port.ok()) {
      http_->Close();
      uv_run(&loop_, UV_RUN_NOWAIT);
      return port.status();
    }
    port_ = *port;
    uv_async_init(&loop_, &async_, [](uv_async_t* a) { static_cast<Impl*>(a->data)->RunPosted(); });
    async_.data = this;
    uv_timer_init(&loop_, &sim_timer_);
    sim_timer_.data = this;
    uv_timer_init(&loop_, &tick_timer_);
    tick_timer_.data = this;
    uv_timer_start(
        &tick_timer_, [](uv_timer_t* t) { static_cast<Impl*>(t->data)->Tick(); }, kTickMs, kTickMs);
    ArmSimTimer();
    thread_ = std::thread([this] { uv_run(&loop_, UV_RUN_DEFAULT); });
    return absl::OkStatus();
  }

  int port() const { return port_; }
  const std::string& host() const { return opts_.host; }

  // Runs `fn` on the loop thread and waits; after Stop, runs it here.
  void Call(std::function<void()> fn) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!running_()) {
      lock.unlock();
      fn();
      return;
    }
    bool done = false;
    posted_.push_back([&]() {
      fn();
      std::lock_guard<std::mutex> g(mu_);
      done = true;
      cv_.notify_all();
    });
    uv_async_send(&async_);
    cv_.wait(lock, [&] { return done; });
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!thread_.joinable()) {
        if (loop_ready_ && !stopped_) {
          stopped_ = true;
          uv_run(&loop_, UV_RUN_NOWAIT);
          uv_loop_close(&loop_);
        }
        return;
      }
      stopping_ = true;
      uv_async_send(&async_);
    }
    thread_.join();
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
    uv_loop_close(&loop_);
  }

  // --- fault controls (loop thread) ---
  void DropWatches() {
    std::vector<ConnId> ids;
    for (const auto& [id, w] : watches_) ids.push_back(id);
    for (ConnId id : ids) http_->Abort(id);
    stats_.watch_dropped += ids.size();
    watches_.clear();
  }
  void Compact() {
    ++epoch_;
    history_.clear();
    floor_rv_ = sim_->objects().resource_version();
  }
  void FailNext(int count, int status, int retry_after_s, std::string verb) {
    fail_next_.push_back(FailRule{count, status, retry_after_s, std::move(verb)});
  }
  void Restart() {
    http_->AbortAll();
    watches_.clear();
    Compact();
  }
  void Unavailable(int64_t real_ms) {
    unavailable_until_ms_ = static_cast<int64_t>(uv_now(&loop_)) + std::max<int64_t>(real_ms, 0);
    ++stats_.outages;
    DropWatches();
  }
  ServerStats stats() const {
    ServerStats out = stats_;
    const auto& st = sim_->stats();
    out.injected += st.injected_write_errors;
    out.edits_applied = st.edits_applied;
    out.edits_failed = st.edits_failed;
    for (const auto& w : st.warnings) {
      if (out.edit_failures.size() >= 5) break;
      if (w.starts_with("edit at ")) out.edit_failures.push_back(w);
    }
    return out;
  }
  std::vector<std::pair<std::string, std::string>> objects() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [k, o] : sim_->objects().objects())
      out.emplace_back(recon::StrCat(k.group, "/", k.kind, "/", k.ns, "/", k.name), engine::Dump(o));
    return out;
  }
  std::optional<std::string> ObjectJson(const ObjectKey& key) {
    const Json* o = sim_->objects().Get(key);
    if (o == nullptr) return std::nullopt;
    return engine::Dump(*o);
  }
  std::vector<RequestLogEntry> log() const { return log_; }
  ApiResult Write(const std::string& verb, const std::string& object_json) {
    auto j = engine::ParseJson(object_json);
    if (!j.ok()) return Failure(400, "BadRequest", std::string(Sv(j.status().message())));
    return sim_->Write(verb, *j);
  }
  uint64_t resource_version() const { return sim_->objects().resource_version(); }
  size_t open_watches() const { return watches_.size(); }

 private:
  struct Change {
    uint64_t rv = 0;
    store::EventType type;
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

  bool running_() const { return thread_.joinable() && !stopping_ && !stopped_; }

  void RunPosted() {
    std::vector<std::function<void()>> fns;
    bool stop = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      fns.swap(posted_);
      stop = stopping_;
    }
    for (auto& fn : fns) fn();
    if (stop) {
      http_->Close();
      watches_.clear();
      uv_close(reinterpret_cast<uv_handle_t*>(&async_), nullptr);
      uv_close(reinterpret_cast<uv_handle_t*>(&sim_timer_), nullptr);
      uv_close(reinterpret_cast<uv_handle_t*>(&tick_timer_), nullptr);
    }
  }

  // --- virtual time ---
  int64_t VirtualNow() const {
    double real = static_cast<double>(SteadyNs() - real_start_ns_);
    return virtual_start_ns_ + static_cast<int64_t>(real * opts_.speed);
  }

  // Runs every happening due by now, then moves the clock to now.
  void Sync() {
    int64_t vnow = VirtualNow();
    for (auto next = sim_->NextTime(); next && *next <= vnow; next = sim_->NextTime()) sim_->Step();
    sim_->AdvanceClock(vnow);
    ArmSimTimer();
  }

  void ArmSimTimer() {
    auto next = sim_->NextTime();
    if (!next) {
      uv_timer_stop(&sim_timer_);
      return;
    }
    double real_ns = static_cast<double>(*next - VirtualNow()) / opts_.speed;
    double ms = std::ceil(std::max(0.0, real_ns) / 1e6);
    uint64_t delay = ms > 2e9 ? 2000000000ull : static_cast<uint64_t>(ms);
    uv_timer_start(
        &sim_timer_, [](uv_timer_t* t) { static_cast<Impl*>(t->data)->Sync(); }, delay, 0);
  }

  // --- watch fan-out ---
  void OnChanges(std::vector<store::EventRecord> events) {
    for (auto& e : events) {
      if (e.type != store::EventType::kAdded && e.type != store::EventType::kModified &&
          e.type != store::EventType::kDeleted)
        continue;
      Change c;
      c.type = e.type;
      c.group = e.object.group;
      c.kind = e.object.kind;
      c.ns = e.object.ns;
      auto parsed = engine::ParseJson(e.body);
      if (parsed.ok()) c.object = std::move(*parsed);
      c.rv = RvOf(c.object);
      // ARM objects carry no resourceVersion: they sort at the current one.
      if (c.rv == 0) c.rv = sim_->objects().resource_version();
      c.body = std::move(e.body);
      ObjectKey key{c.group, c.kind, c.ns, e.object.name};
      auto known = metadata_.find(key);
      if (known != metadata_.end()) c.previous = std::move(known->second);
      if (c.type == store::EventType::kDeleted) {
        if (known != metadata_.end()) metadata_.erase(known);
      } else {
        metadata_[key] = MetadataOf(c.object);
      }
      history_.push_back(std::move(c));
      if (history_.size() > opts_.history) {
        floor_rv_ = std::max(floor_rv_, history_.front().rv);
        history_.pop_front();
      }
      Fanout(history_.back());
    }
  }

  static Json MetadataOf(const Json& object) {
    return Json{{"metadata", engine::Path(object, {"metadata"})}};
  }

  // The event type a watch sees for a change, or nullptr. As the API server
  // does for selectors: an object that starts matching is ADDED, one that
  // stops matching is DELETED.
  static const char* EventFor(const Watch& w, const Change& c) {
    if (c.group != w.res->type.group || c.kind != w.res->type.kind) return nullptr;
    if (!w.ns.empty() && c.ns != w.ns) return nullptr;
    bool now = w.labels.Matches(c.object) && w.fields.Matches(c.object);
    bool before = !c.previous.is_null() && w.labels.Matches(c.previous) && w.fields.Matches(c.previous);
    switch (c.type) {
      case store::EventType::kAdded:
        return now ? "ADDED" : nullptr;
      case store::EventType::kDeleted:
        return now || before ? "DELETED" : nullptr;
      default:
        if (now) return before ? "MODIFIED" : "ADDED";
        return before ? "DELETED" : nullptr;
    }
  }

  static std::string EventLine(const char* type, std::string_view body) {
    return recon::StrCat("{\"type\":\"", type, "\",\"object\":", body, "}\n");
  }

  void Fanout(const Change& c) {
    std::vector<ConnId> ids;
    for (const auto& [id, w] : watches_) ids.push_back(id);
    for (ConnId id : ids) {
      auto it = watches_.find(id);
      if (it == watches_.end() || c.rv <= it->second.rv) continue;
      const char* type = EventFor(it->second, c);
      if (type == nullptr) continue;
      // dropWatch: the stream ends before this event; the client resumes
      // from its last resourceVersion and gets it from the history.
      if (scenario_.faults.drop_watch > 0 && drop_rng_.Uniform() < scenario_.faults.drop_watch) {
        ++stats_.watch_dropped;
        watches_.erase(it);
        http_->EndStream(id);
        continue;
      }
      it->second.rv = c.rv;
      Watch& w = it->second;
      ++stats_.watch_events;
      if (w.held.empty() && scenario_.faults.delay_watch > 0 &&
          drop_rng_.Uniform() < scenario_.faults.delay_watch) {
        ++stats_.watch_delayed;
        double ms = static_cast<double>(scenario_.faults.delay_ns) / 1e6 / opts_.speed;
        w.held_until_ms =
            static_cast<int64_t>(uv_now(&loop_)) + std::max<int64_t>(1, static_cast<int64_t>(ms));
      }
      if (!w.held.empty() || w.held_until_ms > static_cast<int64_t>(uv_now(&loop_))) {
        w.held.push_back(EventLine(type, c.body));
        continue;
      }
      http_->Send(id, EventLine(type, c.body));
    }
  }

  void Tick() {
    uint64_t now = uv_now(&loop_);
    std::vector<ConnId> ended;
    for (auto& [id, w] : watches_) {
      if (!w.held.empty() && static_cast<int64_t>(now) >= w.held_until_ms) {
        for (const auto& line : w.held) http_->Send(id, line);
        w.held.clear();
      }
      if (w.deadline_ms != 0 && static_cast<int64_t>(now) >= w.deadline_ms) {
        ended.push_back(id);
        continue;
      }
      if (w.bookmarks && now - w.last_bookmark_ms >= static_cast<uint64_t>(opts_.bookmark_interval_ms)) {
        w.last_bookmark_ms = now;
        w.rv = std::max(w.rv, sim_->objects().resource_version());
        Json b = {{"kind", w.res->type.kind},
                  {"apiVersion", w.res->type.ApiVersion()},
                  {"metadata", {{"resourceVersion", std::to_string(w.rv)}}}};
        // Behind held events, not ahead of them: a bookmark promises the
        // client everything up to its resourceVersion.
        if (w.held.empty()) {
          http_->Send(id, EventLine("BOOKMARK", engine::Dump(b)));
        } else {
          w.held.push_back(EventLine("BOOKMARK", engine::Dump(b)));
        }
      }
    }
    for (ConnId id : ended) {
      watches_.erase(id);
      http_->EndStream(id);
    }
  }

  // --- requests ---
  HttpAnswer Handle(const HttpRequest& req, ConnId conn) {
    Sync();
    Route route = Parse(req);
    ++stats_.requests;
    HttpAnswer a;
    if (static_cast<int64_t>(uv_now(&loop_)) < unavailable_until_ms_) {
      ++stats_.unavailable;
      a = StatusAnswer(503, "ServiceUnavailable", "the server is currently unable to handle the request");
    } else {
      a = Dispatch(req, route, conn);
      CountWrite(req, route, a);
    }
    if (log_.size() < kMaxLog) log_.push_back(RequestLogEntry{req.method, req.url, a.status});
    return a;
  }

  // Writes applied, and the same action (X-Recon-Action) applied twice.
  void CountWrite(const HttpRequest& req, const Route& route, const HttpAnswer& a) {
    const std::string& v = route.verb;
    if (v != "create" && v != "update" && v != "patch" && v != "delete") return;
    if (a.status < 200 || a.status > 299) return;
    ++stats_.writes_applied;
    std::string id = req.Header("x-recon-action");
    if (id.empty()) return;
    if (++applied_[id] == 2) {
      ++stats_.actions_applied_twice;
      if (stats_.examples.size() < 10)
        stats_.examples.push_back(
            recon::StrCat(req.method, " ", req.path, " (action ", id, ") applied twice"));
    }
  }

  HttpAnswer Dispatch(const HttpRequest& req, const Route& route, ConnId conn) {
    if (!opts_.token.empty() && req.Header("authorization") != "Bearer " + opts_.token) {
      return StatusAnswer(401, "Unauthorized", "Unauthorized");
    }
    for (auto it = fail_next_.begin(); it != fail_next_.end(); ++it) {
      if (!it->verb.empty() && it->verb != route.verb) continue;
      ++stats_.injected;
      FailRule rule = *it;
      if (--it->count <= 0) fail_next_.erase(it);
      HttpAnswer a = StatusAnswer(rule.status, ReasonFor(rule.status),
                                  recon::StrCat("injected failure (", rule.status, ")"));
      if (rule.retry_after_s > 0) {
        a.headers.emplace_back("Retry-After", std::to_string(rule.retry_after_s));
        a.body = engine::Dump(StatusJson(rule.status, ReasonFor(rule.status),
                                         recon::StrCat("injected failure (", rule.status, ")"),
                                         Json{{"retryAfterSeconds", rule.retry_after_s}}));
      }
      return a;
    }
    if (opts_.write_faults > 0 && (route.verb == "create" || route.verb == "update" ||
                                   route.verb == "patch" || route.verb == "delete")) {
      if (fault_rng_.Uniform() < opts_.write_faults) {
        ++stats_.injected;
        bool may_conflict = route.verb == "update" || route.verb == "patch";
        uint64_t pick = fault_rng_.Next() % (may_conflict ? 3 : 2);
        int status = pick == 0 ? 500 : pick == 1 ? 429 : 409;
        HttpAnswer a =
            StatusAnswer(status, ReasonFor(status), recon::StrCat("injected failure (", status, ")"));
        if (status == 429) a.headers.emplace_back("Retry-After", "1");
        return a;
      }
    }
    if (!route.resource) return NonResource(req);
    if (route.res == nullptr) {
      return StatusAnswer(404, "NotFound", "the server could not find the requested resource");
    }
    if (route.verb.empty()) {
      return StatusAnswer(405, "MethodNotAllowed",
                          recon::StrCat(req.method, " is not supported on ", req.path));
    }
    const auto& verbs = route.res->verbs;
    if (std::find(verbs.begin(), verbs.end(),
                  route.verb == "watch" || route.verb == "list" ? "list" : route.verb) == verbs.end()) {
      return StatusAnswer(405, "MethodNotAllowed",
                          recon::StrCat(route.verb, " is not supported on ", route.res->type.plural));
    }
    if (!route.sub.empty() && (route.sub != "status" || !route.res->type.status_subresource)) {
      return StatusAnswer(404, "NotFound", "the server could not find the requested resource");
    }
    // A dry run must not write; rather refused than silently applied.
    if (!req.Query("dryRun").empty()) {
      return StatusAnswer(400, "BadRequest", "dryRun is not supported by the simulated API server");
    }
    if (route.verb == "list") return List(req, route);
    if (route.verb == "watch") return StartWatch(req, route, conn);
    if (route.verb == "get") return Get(route);
    if (route.verb == "create") return Create(req, route);
    if (route.verb == "update") return Update(req, route);
    if (route.verb == "patch") return Patch(req, route);
    return Delete(req, route);
  }

  Route Parse(const HttpRequest& req) const {
    Route r;
    std::vector<std::string> segs;
    for (absl::string_view s : absl::StrSplit(Av(req.path), '/', absl::SkipEmpty())) {
      segs.push_back(PercentDecode(Sv(s), false));
    }
    size_t at = 0;
    if (segs.size() >= 3 && segs[0] == "api" && segs[1] == "v1") {
      r.version = "v1";
      at = 2;
    } else if (segs.size() >= 4 && segs[0] == "apis") {
      r.group = segs[1];
      r.version = segs[2];
      at = 3;
    } else {
      return r;
    }
    r.resource = true;
    std::vector<std::string> rest(segs.begin() + static_cast<long>(at), segs.end());
    if (rest.size() >= 3 && rest[0] == "namespaces") {
      const ServedResource* res = table_.Find(r.group, r.version, rest[2]);
      if (res != nullptr && res->type.namespaced) {
        if (rest.size() > 5) return r;
        r.res = res;
        r.ns = rest[1];
        r.name = rest.size() > 3 ? rest[3] : "";
        r.sub = rest.size() > 4 ? rest[4] : "";
      }
    }
    if (r.res == nullptr) {
      if (rest.size() > 3) return r;
      r.res = table_.Find(r.group, r.version, rest[0]);
      r.name = rest.size() > 1 ? rest[1] : "";
      r.sub = rest.size() > 2 ? rest[2] : "";
      // A namespaced object is only addressable under its namespace.
      if (r.res != nullptr && r.res->type.namespaced && !r.name.empty()) r.res = nullptr;
    }
    if (r.res == nullptr) return r;
    const std::string& m = req.method;
    if (m == "GET") {
      r.verb = r.name.empty() ? (IsTrue(req.Query("watch")) ? "watch" : "list") : "get";
    } else if (m == "POST" && r.name.empty()) {
      r.verb = "create";
    } else if (m == "PUT" && !r.name.empty()) {
      r.verb = "update";
    } else if (m == "PATCH" && !r.name.empty()) {
      r.verb = "patch";
    } else if (m == "DELETE" && !r.name.empty()) {
      r.verb = "delete";
    }
    return r;
  }

  Json Details(const Route& route, const std::string& name = "") const {
    Json d = {{"name", name.empty() ? route.name : name}, {"kind", route.res->type.plural}};
    if (!route.res->type.group.empty()) d["group"] = route.res->type.group;
    return d;
  }

  HttpAnswer Failed(const ApiResult& r, const Route& route, const std::string& name = "") {
    std::string_view err = r.error;
    size_t colon = err.find(": ");
    std::string reason =
        colon == std::string_view::npos ? ReasonFor(r.status) : std::string(err.substr(0, colon));
    std::string message(colon == std::string_view::npos ? err : err.substr(colon + 2));
    Json details = Details(route, name);
    if (!r.details_kind.empty()) {
      // An Invalid: NewInvalid's details (the object's kind, or the resource
      // for a missing resourceVersion) and one cause per field error.
      details = {{"name", name.empty() ? route.name : name}};
      if (!r.details_group.empty()) details["group"] = r.details_group;
      details["kind"] = r.details_kind;
      Json causes = Json::array();
      for (const auto& c : r.causes)
        causes.push_back({{"reason", c.reason}, {"message", c.message}, {"field", c.field}});
      details["causes"] = std::move(causes);
    }
    HttpAnswer a = StatusAnswer(r.status, reason, message, details);
    if (r.status == 429) a.headers.emplace_back("Retry-After", "1");
    return a;
  }

  ObjectKey KeyFor(const Route& route, const std::string& name) const {
    return ObjectKey{route.res->type.group, route.res->type.kind, route.res->type.namespaced ? route.ns : "",
                     name};
  }

  HttpAnswer NotFound(const Route& route) {
    std::string what = route.res->type.group.empty()
                           ? route.res->type.plural
                           : recon::StrCat(route.res->type.plural, ".", route.res->type.group);
    return StatusAnswer(404, "NotFound", recon::StrCat(what, " \"", route.name, "\" not found"),
                        Details(route));
  }

  HttpAnswer Get(const Route& route) {
    const Json* o = sim_->objects().Get(KeyFor(route, route.name));
    if (o == nullptr) return NotFound(route);
    return JsonAnswer(200, *o);
  }

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

  absl::Status Selectors(const HttpRequest& req, Selector* labels, Selector* fields) const {
    auto l = Selector::ParseLabels(req.Query("labelSelector"));
    if (!l.ok()) return l.status();
    auto f = Selector::ParseFields(req.Query("fieldSelector"));
    if (!f.ok()) return f.status();
    *labels = std::move(*l);
    *fields = std::move(*f);
    return absl::OkStatus();
  }

  HttpAnswer List(const HttpRequest& req, const Route& route) {
    Selector labels, fields;
    if (auto s = Selectors(req, &labels, &fields); !s.ok())
      return StatusAnswer(400, "BadRequest", Sv(s.message()));
    uint64_t limit = 0;
    if (std::string l = req.Query("limit"); !l.empty() && !ParseUint(l, &limit)) {
      return StatusAnswer(400, "BadRequest", recon::StrCat("limit: not a number: \"", l, "\""));
    }
    ContinueToken from{sim_->objects().resource_version(), epoch_, "", ""};
    bool continuing = false;
    if (std::string token = req.Query("continue"); !token.empty()) {
      if (!DecodeContinue(token, &from)) {
        return StatusAnswer(400, "BadRequest", "continue key is not valid: illegal base64 data");
      }
      if (from.epoch != epoch_ || from.rv < floor_rv_) {
        return StatusAnswer(410, "Expired",
                            "The provided continue parameter is too old to display a consistent list result. "
                            "You can start a new list without the continue parameter.");
      }
      continuing = true;
    }
    std::string items;
    uint64_t count = 0, remaining = 0;
    std::string last_ns, last_name;
    bool more = false;
    ForEach(route, [&](const ObjectKey& k, const Json& o) {
      if (continuing && std::tie(k.ns, k.name) <= std::tie(from.ns, from.name)) return true;
      if (!labels.Matches(o) || !fields.Matches(o)) return true;
      if (limit > 0 && count >= limit) {
        more = true;
        ++remaining;
        return true;
      }
      if (count++ > 0) items += ",";
      items += engine::Dump(o);
      last_ns = k.ns;
      last_name = k.name;
      return true;
    });
    Json meta = {{"resourceVersion", std::to_string(from.rv)}};
    if (more) {
      meta["continue"] = EncodeContinue(ContinueToken{from.rv, epoch_, last_ns, last_name});
      meta["remainingItemCount"] = remaining;
    }
    HttpAnswer a;
    a.body = recon::StrCat("{\"kind\":\"", route.res->type.kind, "List\",\"apiVersion\":\"",
                           route.res->type.ApiVersion(), "\",\"metadata\":", engine::Dump(meta),
                           ",\"items\":[", items, "]}");
    return a;
  }

  HttpAnswer StartWatch(const HttpRequest& req, const Route& route, ConnId conn) {
    Watch w;
    w.res = route.res;
    w.ns = route.ns;
    if (auto s = Selectors(req, &w.labels, &w.fields); !s.ok())
      return StatusAnswer(400, "BadRequest", Sv(s.message()));
    w.bookmarks = IsTrue(req.Query("allowWatchBookmarks"));
    w.last_bookmark_ms = uv_now(&loop_);
    if (std::string t = req.Query("timeoutSeconds"); !t.empty()) {
      uint64_t secs = 0;
      if (!ParseUint(t, &secs))
        return StatusAnswer(400, "BadRequest", recon::StrCat("timeoutSeconds: \"", t, "\""));
      w.deadline_ms = static_cast<int64_t>(uv_now(&loop_) + secs * 1000);
    }
    std::string rv_text = req.Query("resourceVersion");
    uint64_t from = 0;
    bool initial = rv_text.empty() || rv_text == "0";
    if (!initial && !ParseUint(rv_text, &from)) {
      return StatusAnswer(400, "BadRequest",
                          recon::StrCat("resourceVersion: not a number: \"", rv_text, "\""));
    }
    HttpAnswer a;
    a.stream = true;
    uint64_t now_rv = sim_->objects().resource_version();
    if (!initial && from < floor_rv_) {
      // As the API server does for a watch: 200, one ERROR event, the end.
      a.after = [this, conn, from]() {
        Json st = StatusJson(410, "Expired",
                             recon::StrCat("too old resource version: ", from, " (", floor_rv_, ")"), Json());
        http_->Send(conn, EventLine("ERROR", engine::Dump(st)));
        http_->EndStream(conn);
      };
      return a;
    }
    a.after = [this, conn, w = std::move(w), initial, from, now_rv, route]() mutable {
      if (initial) {
        ForEach(route, [&](const ObjectKey&, const Json& o) {
          if (w.labels.Matches(o) && w.fields.Matches(o))
            http_->Send(conn, EventLine("ADDED", engine::Dump(o)));
          return true;
        });
        w.rv = now_rv;
      } else {
        // A resourceVersion from the future counts as now.
        w.rv = std::min(from, now_rv);
        for (const Change& c : history_) {
          const char* type = c.rv > w.rv ? EventFor(w, c) : nullptr;
          if (type != nullptr) {
            http_->Send(conn, EventLine(type, c.body));
            w.rv = c.rv;
          }
        }
      }
      watches_[conn] = std::move(w);
    };
    return a;
  }

  // Parses a write's body and checks it against the URL; fills apiVersion,
  // kind, namespace (and name) the URL implies.
  // The media types the real server decodes for a resource: CRDs have no
  // protobuf form.
  std::string AcceptedTypes(const Route& route) const {
    const auto& t = route.res->type;
    bool crd = opts_.api.crds != nullptr && opts_.api.crds->Find(t.group, t.version, t.kind) != nullptr;
    return crd ? "application/json, application/yaml"
               : "application/json, application/yaml, application/vnd.kubernetes.protobuf";
  }

  // A body error as the server answers it: 415 for a media type it cannot
  // decode (Unimplemented), 400 otherwise.
  static HttpAnswer BodyError(const absl::Status& s) {
    if (absl::IsUnimplemented(s)) return StatusAnswer(415, "UnsupportedMediaType", Sv(s.message()));
    return StatusAnswer(400, "BadRequest", Sv(s.message()));
  }

  absl::StatusOr<Json> Body(const HttpRequest& req, const Route& route, bool named) {
    std::string type = req.Header("content-type");
    type = std::string(absl::StripAsciiWhitespace(type.substr(0, type.find(';'))));
    absl::StatusOr<Json> body = Json();
    if (type == "application/vnd.kubernetes.protobuf" && route.res->type.group.empty() &&
        AcceptedTypes(route).ends_with("protobuf")) {
      body = DecodeProtobufObject(req.body);
      if (absl::IsUnimplemented(body.status())) {
        return absl::UnimplementedError(
            recon::StrCat("the body of the request was in an unknown format - accepted media types include: ",
                          AcceptedTypes(route)));
      }
      if (!body.ok()) return body.status();
    } else if (!type.empty() && type != "application/json") {
      return absl::UnimplementedError(
          recon::StrCat("the body of the request was in an unknown format - accepted media types include: ",
                        AcceptedTypes(route)));
    } else {
      body = engine::ParseJson(req.body);
    }
    if (!body.ok() || !body->is_object()) {
      return absl::InvalidArgumentError(
          recon::StrCat("the request body is not a JSON object",
                        body.ok() ? "" : recon::StrCat(": ", Sv(body.status().message()))));
    }
    Json& o = *body;
    const auto& t = route.res->type;
    if (!o.contains("apiVersion")) o["apiVersion"] = t.ApiVersion();
    if (!o.contains("kind")) o["kind"] = t.kind;
    if (engine::GetString(o, {"kind"}) != t.kind || engine::GetString(o, {"apiVersion"}) != t.ApiVersion()) {
      return absl::InvalidArgumentError(recon::StrCat("the body is a ", engine::GetString(o, {"apiVersion"}),
                                                      " ", engine::GetString(o, {"kind"}), ", the URL names ",
                                                      t.ApiVersion(), " ", t.kind));
    }
    if (!o["metadata"].is_object()) o["metadata"] = Json::object();
    Json& meta = o["metadata"];
    if (t.namespaced) {
      std::string ns = engine::GetString(meta, {"namespace"});
      if (ns.empty()) {
        meta["namespace"] = route.ns;
      } else if (ns != route.ns) {
        return absl::InvalidArgumentError(
            "the namespace of the provided object does not match the namespace sent on the request");
      }
    } else {
      meta.erase("namespace");
    }
    if (named) {
      std::string name = engine::GetString(meta, {"name"});
      if (name.empty()) {
        meta["name"] = route.name;
      } else if (name != route.name) {
        return absl::InvalidArgumentError(recon::StrCat(
            "the name of the object (", name, ") does not match the name on the URL (", route.name, ")"));
      }
    }
    return body;
  }

  // metadata.managedFields as kube-apiserver sets them (managed_fields.h);
  // the 422 an invalid fieldManager gets.
  std::optional<HttpAnswer> TrackFields(const HttpRequest& req, const Route& route, const Json* live,
                                        Json& next, std::string_view options_kind) {
    auto manager = RequestFieldManager(req.Query("fieldManager"), req.Header("user-agent"), options_kind);
    if (!manager.ok()) return StatusAnswer(422, "Invalid", Sv(manager.status().message()));
    FieldManagerWrite w{*manager, route.sub, engine::FormatRfc3339Seconds(sim_->now()),
                        route.res->type.status_subresource, nullptr};
    const auto& t = route.res->type;
    const crd::Kind* k = opts_.api.crds ? opts_.api.crds->Find(t.group, t.version, t.kind) : nullptr;
    if (k != nullptr && k->schema) w.schema = &k->schema->root();
    TrackManagedFields(live, next, w);
    return std::nullopt;
  }

  // The object as stored after a write (the last event), or as it is.
  HttpAnswer Written(const ApiResult& r, const Route& route, const ObjectKey& key, int status) {
    if (!r.ok) return Failed(r, route);
    HttpAnswer a;
    a.status = status;
    if (!r.events.empty()) {
      a.body = r.events.back().body;
    } else if (const Json* o = sim_->objects().Get(key)) {
      a.body = engine::Dump(*o);
    } else {
      return NotFound(route);
    }
    return a;
  }

  HttpAnswer Create(const HttpRequest& req, const Route& route) {
    auto body = Body(req, route, false);
    if (!body.ok()) return BodyError(body.status());
    if (route.res->type.kind == "ImageStreamImport") {
      ApiResult r = sim_->RequestImport(*body);
      if (!r.ok) return Failed(r, route);
      ArmSimTimer();
      Json echo = *body;
      if (!echo.contains("status")) echo["status"] = Json::object();
      return JsonAnswer(201, echo);
    }
    if (auto refused = TrackFields(req, route, nullptr, *body, "CreateOptions")) return *refused;
    ApiResult r = sim_->Write("create", *body);
    auto key = KeyOf(*body);
    ArmSimTimer();
    if (!r.ok && r.status == 409 && r.error.rfind("AlreadyExists", 0) == 0) {
      ++stats_.already_exists;
      if (stats_.examples.size() < 10)
        stats_.examples.push_back(recon::StrCat(req.method, " ", req.path, " (action ",
                                                req.Header("x-recon-action"), "): ", r.error));
    }
    if (!r.ok) return Failed(r, route, engine::GetString(*body, {"metadata", "name"}));
    if (r.events.empty() || !key.ok()) return Written(r, route, key.ok() ? *key : ObjectKey{}, 201);
    return Written(r, route, *key, r.status == 200 ? 200 : 201);
  }

  HttpAnswer Update(const HttpRequest& req, const Route& route) {
    auto body = Body(req, route, true);
    if (!body.ok()) return BodyError(body.status());
    const Json* live = sim_->objects().Get(KeyFor(route, route.name));
    if (auto refused = TrackFields(req, route, live, *body, "UpdateOptions")) return *refused;
    ApiResult r = sim_->Write(route.sub == "status" ? "updateStatus" : "update", *body);
    ArmSimTimer();
    return Written(r, route, KeyFor(route, route.name), 200);
  }

  HttpAnswer Patch(const HttpRequest& req, const Route& route) {
    ObjectKey key = KeyFor(route, route.name);
    const Json* current = sim_->objects().Get(key);
    if (current == nullptr) return NotFound(route);
    std::string type = req.Header("content-type");
    type = type.substr(0, type.find(';'));
    auto patched = ApplyPatch(type, *current, req.body);
    if (!patched.ok()) {
      if (absl::IsUnimplemented(patched.status())) {
        return StatusAnswer(415, "UnsupportedMediaType", Sv(patched.status().message()));
      }
      return StatusAnswer(422, "Invalid", Sv(patched.status().message()));
    }
    Json& o = *patched;
    if (!o.is_object()) return StatusAnswer(422, "Invalid", "the patch did not yield an object");
    // A patch cannot move an object; a resourceVersion it sets is a precondition.
    o["apiVersion"] = route.res->type.ApiVersion();
    o["kind"] = route.res->type.kind;
    if (!o["metadata"].is_object()) o["metadata"] = Json::object();
    o["metadata"]["name"] = route.name;
    if (route.res->type.namespaced) o["metadata"]["namespace"] = route.ns;
    if (!o["metadata"].contains("resourceVersion") || o["metadata"]["resourceVersion"].is_null()) {
      o["metadata"]["resourceVersion"] = engine::Path(*current, {"metadata", "resourceVersion"});
    }
    if (auto refused = TrackFields(req, route, current, o, "PatchOptions")) return *refused;
    ApiResult r = sim_->Write(route.sub == "status" ? "updateStatus" : "update", o);
    ArmSimTimer();
    return Written(r, route, key, 200);
  }

  HttpAnswer Delete(const HttpRequest& req, const Route& route) {
    ObjectKey key = KeyFor(route, route.name);
    const Json* current = sim_->objects().Get(key);
    if (current == nullptr) return NotFound(route);
    if (!req.body.empty()) {
      auto opts = engine::ParseJson(req.body);
      if (!opts.ok() || !opts->is_object())
        return StatusAnswer(400, "BadRequest", "DeleteOptions: not a JSON object");
      const Json& pre = engine::Path(*opts, {"preconditions"});
      std::string uid = engine::GetString(pre, {"uid"}), rv = engine::GetString(pre, {"resourceVersion"});
      std::string cur_uid = engine::GetString(*current, {"metadata", "uid"});
      std::string cur_rv = engine::GetString(*current, {"metadata", "resourceVersion"});
      if (!uid.empty() && uid != cur_uid) {
        return StatusAnswer(409, "Conflict",
                            recon::StrCat("Precondition failed: UID in precondition: ", uid,
                                          ", UID in object meta: ", cur_uid),
                            Details(route));
      }
      if (!rv.empty() && rv != cur_rv) {
        return StatusAnswer(409, "Conflict",
                            recon::StrCat("Precondition failed: ResourceVersion in precondition: ", rv,
                                          ", ResourceVersion in object meta: ", cur_rv),
                            Details(route));
      }
    }
    Json copy = *current;
    ApiResult r = sim_->Write("delete", copy);
    ArmSimTimer();
    if (r.ok && r.events.empty()) return JsonAnswer(200, copy);  // already terminating
    return Written(r, route, key, 200);
  }

  // --- discovery and the rest ---
  Json GroupJson(const std::string& group) const {
    Json versions = Json::array();
    std::vector<std::string> vs = table_.Versions(group);
    // As apiextensions-apiserver lists a group: Kubernetes version priority
    // (GA > beta > alpha, higher numbers first), the first one preferred.
    std::stable_sort(vs.begin(), vs.end(), KubeVersionBefore);
    for (const auto& v : vs) versions.push_back({{"groupVersion", group + "/" + v}, {"version", v}});
    std::string preferred = vs.front();
    return {{"name", group},
            {"versions", versions},
            {"preferredVersion", {{"groupVersion", group + "/" + preferred}, {"version", preferred}}}};
  }

  HttpAnswer ResourceList(const std::string& group, const std::string& version) const {
    Json resources = Json::array();
    for (const auto& r : table_.all()) {
      if (r.type.group != group || r.type.version != version) continue;
      Json e = {{"name", r.type.plural},
                {"singularName", r.singular},
                {"namespaced", r.type.namespaced},
                {"kind", r.type.kind},
                {"verbs", r.verbs}};
      if (!r.type.short_names.empty()) e["shortNames"] = r.type.short_names;
      resources.push_back(e);
      if (r.type.status_subresource) {
        resources.push_back({{"name", r.type.plural + "/status"},
                             {"singularName", ""},
                             {"namespaced", r.type.namespaced},
                             {"kind", r.type.kind},
                             {"verbs", {"get", "patch", "update"}}});
      }
    }
    if (resources.empty())
      return StatusAnswer(404, "NotFound", "the server could not find the requested resource");
    return JsonAnswer(200, {{"kind", "APIResourceList"},
                            {"apiVersion", "v1"},
                            {"groupVersion", group.empty() ? version : group + "/" + version},
                            {"resources", resources}});
  }

  HttpAnswer NonResource(const HttpRequest& req) {
    const std::string& p = req.path;
    if (req.method != "GET") return StatusAnswer(405, "MethodNotAllowed", recon::StrCat(req.method, " ", p));
    if (p == "/version" || p == "/version/") {
      return JsonAnswer(200, {{"major", "1"},
                              {"minor", "32"},
                              {"gitVersion", "v1.32.0-recon-sim"},
                              {"gitCommit", "0000000000000000000000000000000000000000"},
                              {"gitTreeState", "clean"},
                              {"buildDate", "2026-01-01T00:00:00Z"},
                              {"goVersion", "none"},
                              {"compiler", "none"},
                              {"platform", "linux/amd64"}});
    }
    if (p == "/healthz" || p == "/readyz" || p == "/livez") {
      HttpAnswer a;
      a.content_type = "text/plain; charset=utf-8";
      a.body = "ok";
      return a;
    }
    if (p == "/api" || p == "/api/") {
      return JsonAnswer(
          200, {{"kind", "APIVersions"},
                {"versions", {"v1"}},
                {"serverAddressByClientCIDRs",
                 {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", recon::StrCat(opts_.host, ":", port_)}}}}});
    }
    if (p == "/api/v1" || p == "/api/v1/") return ResourceList("", "v1");
    if (p == "/apis" || p == "/apis/") {
      Json groups = Json::array();
      for (const auto& g : table_.Groups()) {
        if (!g.empty()) groups.push_back(GroupJson(g));
      }
      return JsonAnswer(200, {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}});
    }
    if (p == "/recon-sim/v1/probe") return Probe(req);
    if (p == "/openapi/v3" || p.starts_with("/openapi/v3/"))
      return OpenApiV3(p.substr(std::min<size_t>(p.size(), 12)));
    std::vector<std::string> segs = absl::StrSplit(Av(p), '/', absl::SkipEmpty());
    if (segs.size() == 2 && segs[0] == "apis" && !table_.Versions(segs[1]).empty()) {
      Json g = GroupJson(segs[1]);
      g["kind"] = "APIGroup";
      g["apiVersion"] = "v1";
      return JsonAnswer(200, g);
    }
    if (segs.size() == 3 && segs[0] == "apis") return ResourceList(segs[1], segs[2]);
    return StatusAnswer(404, "NotFound", "the server could not find the requested resource");
  }

  // Just enough OpenAPI v3 for kubectl's field validation check: every
  // served kind has a PATCH operation that takes fieldValidation, so kubectl
  // leaves validation to the server (which does not validate: documented).
  // No schemas: kubectl then computes apply patches without them.
  HttpAnswer OpenApiV3(const std::string& gv) {
    std::vector<std::pair<std::string, std::string>> gvs;  // (group, version)
    for (const auto& r : table_.all()) {
      std::pair<std::string, std::string> k{r.type.group, r.type.version};
      if (std::find(gvs.begin(), gvs.end(), k) == gvs.end()) gvs.push_back(k);
    }
    auto prefix = [](const std::pair<std::string, std::string>& k) {
      return k.first.empty() ? "api/" + k.second : "apis/" + k.first + "/" + k.second;
    };
    if (gv.empty()) {
      Json paths = Json::object();
      for (const auto& k : gvs) {
        paths[prefix(k)] = {{"serverRelativeURL", "/openapi/v3/" + prefix(k) + "?hash=recon-sim"}};
      }
      return JsonAnswer(200, {{"paths", paths}});
    }
    Json paths = Json::object();
    for (const auto& r : table_.all()) {
      if (prefix({r.type.group, r.type.version}) != gv) continue;
      std::string path = recon::StrCat("/", gv, r.type.namespaced ? "/namespaces/{namespace}/" : "/",
                                       r.type.plural, "/{name}");
      paths[path] = {{"patch",
                      {{"x-kubernetes-group-version-kind",
                        {{"group", r.type.group}, {"version", r.type.version}, {"kind", r.type.kind}}},
                       {"parameters",
                        {{{"name", "fieldValidation"}, {"in", "query"}, {"schema", {{"type", "string"}}}}}},
                       {"responses", {{"200", {{"description", "OK"}}}}}}}};
    }
    if (paths.empty())
      return StatusAnswer(404, "NotFound", "the server could not find the requested resource");
    return JsonAnswer(
        200, {{"openapi", "3.0.0"}, {"info", {{"title", "recon sim"}, {"version", "v1"}}}, {"paths", paths}});
  }

  HttpAnswer Probe(const HttpRequest& req) {
    std::string name = req.Query("name");
    if (name.empty()) return StatusAnswer(400, "BadRequest", "probe: the name parameter is required");
    store::EventRecord e = sim_->probes().Answer(name, req.Query("target"), sim_->now());
    Json out = {{"ok", e.probe.ok},
                {"status", e.probe.status ? Json(*e.probe.status) : Json()},
                {"detail", e.probe.detail},
                {"data", Json()}};
    if (!e.probe.data.empty()) {
      auto data = engine::ParseJson(e.probe.data);
      if (data.ok()) out["data"] = std::move(*data);
    }
    return JsonAnswer(200, out);
  }

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

absl::StatusOr<std::unique_ptr<ApiServer>> ApiServer::Start(const Scenario& scenario, ServeOptions options,
                                                            std::vector<engine::ResourceType> resources) {
  auto impl = std::make_unique<Impl>(scenario, std::move(options), std::move(resources));
  if (auto s = impl->Init(); !s.ok()) return s;
  return std::unique_ptr<ApiServer>(new ApiServer(std::move(impl)));
}

ApiServer::ApiServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ApiServer::~ApiServer() { Stop(); }

int ApiServer::port() const { return impl_->port(); }
std::string ApiServer::url() const { return recon::StrCat("http://", impl_->host(), ":", impl_->port()); }
void ApiServer::Stop() { impl_->Stop(); }

void ApiServer::DropWatches() {
  impl_->Call([this] { impl_->DropWatches(); });
}
void ApiServer::Compact() {
  impl_->Call([this] { impl_->Compact(); });
}
void ApiServer::FailNext(int count, int status, int retry_after_s, std::string verb_filter) {
  impl_->Call([&] { impl_->FailNext(count, status, retry_after_s, verb_filter); });
}
void ApiServer::Restart() {
  impl_->Call([this] { impl_->Restart(); });
}
std::optional<std::string> ApiServer::ObjectJson(const std::string& group, const std::string& kind,
                                                 const std::string& ns, const std::string& name) {
  std::optional<std::string> out;
  impl_->Call([&] { out = impl_->ObjectJson(ObjectKey{group, kind, ns, name}); });
  return out;
}
std::vector<RequestLogEntry> ApiServer::Requests() {
  std::vector<RequestLogEntry> out;
  impl_->Call([&] { out = impl_->log(); });
  return out;
}
uint64_t ApiServer::ResourceVersion() {
  uint64_t out = 0;
  impl_->Call([&] { out = impl_->resource_version(); });
  return out;
}
void ApiServer::Unavailable(int64_t real_ms) {
  impl_->Call([&] { impl_->Unavailable(real_ms); });
}
ServerStats ApiServer::Stats() {
  ServerStats out;
  impl_->Call([&] { out = impl_->stats(); });
  return out;
}
ApiResult ApiServer::Write(const std::string& verb, const std::string& object_json) {
  ApiResult out;
  impl_->Call([&] { out = impl_->Write(verb, object_json); });
  return out;
}

std::vector<std::pair<std::string, std::string>> ApiServer::Objects() {
  std::vector<std::pair<std::string, std::string>> out;
  impl_->Call([&] { out = impl_->objects(); });
  return out;
}
size_t ApiServer::OpenWatches() {
  size_t out = 0;
  impl_->Call([&] { out = impl_->open_watches(); });
  return out;
}

}  // namespace recon::sim
