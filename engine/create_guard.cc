#include "engine/create_guard.h"

#include <algorithm>

#include "base/strings.h"
#include "engine/emit.h"
#include "engine/time_format.h"

namespace recon::engine {
namespace {

std::string GroupKind(std::string_view group, std::string_view kind) {
  return recon::StrCat(group, "/", kind);
}

std::string ObjectKey(std::string_view group, std::string_view kind, std::string_view ns,
                      std::string_view name) {
  return recon::StrCat(group, "/", kind, "|", ns, "|", name);
}

std::string Scope(std::string_view domain, std::string_view group, std::string_view kind,
                  std::string_view ns) {
  return recon::StrCat(domain, "|", group, "/", kind, "|", ns);
}

std::string Subject(std::string_view kind, std::string_view ns, std::string_view name) {
  return ns.empty() ? recon::StrCat(kind, " ", name) : recon::StrCat(kind, " ", ns, "/", name);
}

// A refusal is a 4xx the same request would get again; not a timeout, a
// conflict (a stale resourceVersion: re-read and retry) or throttling. A
// status write's 404 is a missing object, not a refused write.
bool Refused(const Event& e, bool create) {
  if (e.ok || !e.status) return false;
  int s = *e.status;
  if (s < 400 || s >= 500 || s == 408 || s == 409 || s == 429) return false;
  return create || s != 404;
}

int64_t RetryAfterNs(int strikes) {
  int64_t d = CreateGuard::kRetryBaseNs;
  for (int i = 1; i < strikes && d < CreateGuard::kRetryMaxNs; ++i) d *= 2;
  return std::min(d, CreateGuard::kRetryMaxNs);
}

std::string Short(std::string_view message) {
  constexpr size_t kMax = 200;
  if (message.size() <= kMax) return std::string(message);
  return recon::StrCat(message.substr(0, kMax), "...");
}

}  // namespace

void CreateGuard::Forget(const std::string& id) {
  auto it = open_.find(id);
  if (it == open_.end()) return;
  const Open& o = it->second;
  open_by_time_.erase({o.at_ns, id});
  if (o.create) {
    auto erase_from = [&](std::map<std::string, std::set<std::string>>& index, const std::string& key) {
      auto s = index.find(key);
      if (s == index.end()) return;
      s->second.erase(id);
      if (s->second.empty()) index.erase(s);
    };
    erase_from(open_creates_by_object_, ObjectKey(o.group, o.kind, o.ns, o.name));
    erase_from(open_creates_by_scope_, Scope(o.domain, o.group, o.kind, o.ns));
  }
  open_.erase(it);
}

void CreateGuard::ResolveObject(const Event& e) {
  // The object exists (or is gone): creates of it have their outcome.
  auto by_object = open_creates_by_object_.find(ObjectKey(e.group, e.kind, e.ns, e.name));
  if (by_object != open_creates_by_object_.end()) {
    std::set<std::string> ids = by_object->second;
    for (const auto& id : ids) Forget(id);
  }
  // A refused create of this very object: someone made it, or it changed.
  const std::string suffix = recon::StrCat("|", GroupKind(e.group, e.kind), "|", e.ns);
  for (auto it = create_refused_.begin(); it != create_refused_.end();) {
    bool match = it->first.size() >= suffix.size() &&
                 it->first.compare(it->first.size() - suffix.size(), suffix.size(), suffix) == 0 &&
                 it->second.name == e.name;
    it = match ? create_refused_.erase(it) : std::next(it);
  }
  if (e.type != records::EventType::kDeleted) return;
  // A deleted object's refused status write is moot.
  const std::string object = recon::StrCat(GroupKind(e.group, e.kind), "|", e.name);
  const std::string ns_suffix = recon::StrCat("|", e.ns);
  for (auto it = status_refused_.begin(); it != status_refused_.end();) {
    bool in_ns = it->first.size() >= ns_suffix.size() &&
                 it->first.compare(it->first.size() - ns_suffix.size(), ns_suffix.size(), ns_suffix) == 0 &&
                 it->first.find('|') == it->first.size() - ns_suffix.size();
    if (in_ns) it->second.erase(object);
    it = it->second.empty() ? status_refused_.erase(it) : std::next(it);
  }
}

void CreateGuard::Observe(const Event& e) {
  // Writes whose answer never came (the dispatcher replaced them) expire.
  while (!open_by_time_.empty() && open_by_time_.begin()->first + kOpenTimeoutNs <= e.time_ns) {
    std::string id = open_by_time_.begin()->second;
    Forget(id);
  }
  if (e.IsObject()) {
    ResolveObject(e);
    return;
  }
  if (e.type != records::EventType::kActionResult) return;
  auto it = open_.find(std::string(e.action));
  if (it == open_.end()) return;
  Open o = it->second;
  const std::string id = it->first;  // Forget erases the entry `it` names
  Forget(id);
  std::string subject = Subject(o.kind, o.ns, o.name);
  if (o.create) {
    std::string scope = Scope(o.domain, o.group, o.kind, o.ns);
    if (e.ok || (e.status && *e.status == 409)) {
      create_refused_.erase(scope);
    } else if (Refused(e, true)) {
      Refusal& r = create_refused_[scope];
      r.object = subject;
      r.name = o.name;
      r.code = *e.status;
      r.message = Short(e.error);
      r.since_ns = e.time_ns;
      r.strikes += 1;
      r.retry_at_ns = e.time_ns + RetryAfterNs(r.strikes);
    }
    return;
  }
  std::string ns_key = recon::StrCat(o.domain, "|", o.ns);
  std::string object = recon::StrCat(GroupKind(o.group, o.kind), "|", o.name);
  if (e.ok) {
    auto s = status_refused_.find(ns_key);
    if (s != status_refused_.end()) {
      s->second.erase(object);
      if (s->second.empty()) status_refused_.erase(s);
    }
  } else if (Refused(e, false)) {
    Refusal& r = status_refused_[ns_key][object];
    r.object = subject;
    r.name = o.name;
    r.code = *e.status;
    r.message = Short(e.error);
    if (r.strikes == 0) r.since_ns = e.time_ns;
    r.strikes += 1;
  }
}

std::string CreateGuard::ReasonToHold(const Event& e, const records::ActionRecord& a) {
  const auto& obj = a.object;
  auto status = status_refused_.find(recon::StrCat(a.domain, "|", obj.ns));
  if (status != status_refused_.end() && !status->second.empty()) {
    const Refusal& r = status->second.begin()->second;
    return recon::StrCat("a status write to ", r.object, " was refused (", r.code, ": ", r.message,
                         ") since ", FormatRfc3339Seconds(r.since_ns),
                         "; creates wait until a status write to it succeeds or it is deleted");
  }
  std::string scope = Scope(a.domain, obj.group, obj.kind, obj.ns);
  auto refused = create_refused_.find(scope);
  if (refused != create_refused_.end()) {
    Refusal& r = refused->second;
    if (e.time_ns < r.retry_at_ns) {
      return recon::StrCat("the create of ", r.object, " was refused (", r.code, ": ", r.message, ") at ",
                           FormatRfc3339Seconds(r.since_ns), "; next try at or after ",
                           FormatRfc3339Seconds(r.retry_at_ns));
    }
    // Let this one through as the retry; the next waits another period.
    r.retry_at_ns = e.time_ns + RetryAfterNs(r.strikes + 1);
  }
  auto open = open_creates_by_scope_.find(scope);
  if (open != open_creates_by_scope_.end()) {
    for (const auto& id : open->second) {
      auto it = open_.find(id);
      if (it == open_.end()) continue;
      const Open& o = it->second;
      // Same event: one batch. Another object: a domain may well create
      // several objects of a kind in a namespace across events (samples'
      // ConfigMaps); only creating the same one again is held here.
      if (o.cause >= e.seq || o.name != obj.name) continue;
      return recon::StrCat("waits for the outcome of the create of ", Subject(o.kind, o.ns, o.name),
                           " (action ", id, ")");
    }
  }
  return "";
}

void CreateGuard::Admit(const Event& e, std::vector<records::ActionRecord>& actions, size_t from,
                        std::vector<HeldCreate>* held) {
  size_t keep = from;
  for (size_t i = from; i < actions.size(); ++i) {
    records::ActionRecord& a = actions[i];
    bool create = a.verb == "create";
    if (create) {
      std::string why = ReasonToHold(e, a);
      if (!why.empty()) {
        if (held) held->push_back({a.domain, a.object.group, a.object.kind, a.object.ns, a.object.name, why});
        continue;
      }
    }
    if (create || a.verb == "updateStatus") {
      std::string id = ActionId(a.cause_seq, a.index);
      Open o{a.domain,      a.object.group, a.object.kind, a.object.ns,
             a.object.name, create,         a.cause_seq,   e.time_ns};
      if (create) {
        open_creates_by_object_[ObjectKey(o.group, o.kind, o.ns, o.name)].insert(id);
        open_creates_by_scope_[Scope(o.domain, o.group, o.kind, o.ns)].insert(id);
      }
      open_by_time_.emplace(o.at_ns, id);
      open_[id] = std::move(o);
    }
    if (keep != i) actions[keep] = std::move(a);
    ++keep;
  }
  actions.resize(keep);
}

void CreateGuard::Clear() {
  open_.clear();
  open_by_time_.clear();
  open_creates_by_object_.clear();
  open_creates_by_scope_.clear();
  create_refused_.clear();
  status_refused_.clear();
}

namespace {

// Never throws on a malformed snapshot (fuzz/fuzz_snapshot_restore).
int64_t Int(const Json& j, std::string_view key) {
  const Json& v = Path(j, {key});
  return v.is_number_integer() ? v.get<int64_t>() : 0;
}

Json RefusalJson(const std::string& key, const auto& r) {
  return Json{
      {"key", key},           {"object", r.object},  {"name", r.name},           {"code", r.code},
      {"message", r.message}, {"since", r.since_ns}, {"retryAt", r.retry_at_ns}, {"strikes", r.strikes}};
}

template <typename R>
void RefusalFrom(const Json& j, R* r) {
  r->object = GetString(j, {"object"});
  r->name = GetString(j, {"name"});
  r->code = static_cast<int>(Int(j, "code"));
  r->message = GetString(j, {"message"});
  r->since_ns = Int(j, "since");
  r->retry_at_ns = Int(j, "retryAt");
  r->strikes = static_cast<int>(Int(j, "strikes"));
}

}  // namespace

Json CreateGuard::ToJson() const {
  Json open = Json::array();
  for (const auto& [id, o] : open_) {
    open.push_back(Json{{"id", id},
                        {"domain", o.domain},
                        {"group", o.group},
                        {"kind", o.kind},
                        {"ns", o.ns},
                        {"name", o.name},
                        {"create", o.create},
                        {"cause", o.cause},
                        {"at", o.at_ns}});
  }
  Json creates = Json::array();
  for (const auto& [scope, r] : create_refused_) creates.push_back(RefusalJson(scope, r));
  Json statuses = Json::array();
  for (const auto& [ns_key, objects] : status_refused_) {
    for (const auto& [object, r] : objects) {
      Json s = RefusalJson(object, r);
      s["scope"] = ns_key;
      statuses.push_back(std::move(s));
    }
  }
  return Json{{"open", open}, {"createRefused", creates}, {"statusRefused", statuses}};
}

absl::Status CreateGuard::FromJson(const Json& j) {
  Clear();
  if (!j.is_object()) return absl::DataLossError("create guard state: expected an object");
  const Json& open = Path(j, {"open"});
  const Json& creates = Path(j, {"createRefused"});
  const Json& statuses = Path(j, {"statusRefused"});
  if (!open.is_array() || !creates.is_array() || !statuses.is_array())
    return absl::DataLossError("create guard state: expected open, createRefused and statusRefused arrays");
  for (const auto& x : open) {
    if (!x.is_object()) return absl::DataLossError("create guard state: open: expected objects");
    std::string id = GetString(x, {"id"});
    Open o{GetString(x, {"domain"}),
           GetString(x, {"group"}),
           GetString(x, {"kind"}),
           GetString(x, {"ns"}),
           GetString(x, {"name"}),
           Path(x, {"create"}).is_boolean() && Path(x, {"create"}).get<bool>(),
           static_cast<uint64_t>(Int(x, "cause")),
           Int(x, "at")};
    if (o.create) {
      open_creates_by_object_[ObjectKey(o.group, o.kind, o.ns, o.name)].insert(id);
      open_creates_by_scope_[Scope(o.domain, o.group, o.kind, o.ns)].insert(id);
    }
    open_by_time_.emplace(o.at_ns, id);
    open_[id] = std::move(o);
  }
  for (const auto& x : creates) {
    if (!x.is_object()) return absl::DataLossError("create guard state: createRefused: expected objects");
    RefusalFrom(x, &create_refused_[GetString(x, {"key"})]);
  }
  for (const auto& x : statuses) {
    if (!x.is_object()) return absl::DataLossError("create guard state: statusRefused: expected objects");
    RefusalFrom(x, &status_refused_[GetString(x, {"scope"})][GetString(x, {"key"})]);
  }
  return absl::OkStatus();
}

}  // namespace recon::engine
