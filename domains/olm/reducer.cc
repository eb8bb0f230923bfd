#include "domains/olm/reducer.h"

#include <algorithm>
#include <set>

#include "base/strings.h"
#include "engine/time_format.h"

namespace recon::olm {
namespace {

constexpr std::string_view kCatalogPrefix = "olm/catalog/";

uint64_t HashOf(const Json& j) {
  uint64_t h = 1469598103934665603ULL;
  for (char c : engine::Dump(j)) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return h;
}

std::string Key(std::string_view kind, std::string_view ns, std::string_view name) {
  return StrCat(kind, "/", ns, "/", name);
}

Json WritesToJson(const std::map<std::string, PendingWrite>& m) {
  Json out = Json::object();
  for (const auto& [k, w] : m)
    out[k] = Json{{"body", w.body}, {"seq", w.seq}, {"action", w.action}, {"history", w.history}};
  return out;
}

std::map<std::string, PendingWrite> WritesFromJson(const Json& j) {
  std::map<std::string, PendingWrite> out;
  if (!j.is_object()) return out;
  for (const auto& [k, v] : j.items()) {
    PendingWrite w;
    w.body = engine::Path(v, {"body"});
    const Json& s = engine::Path(v, {"seq"});
    w.seq = s.is_number_unsigned() ? s.get<uint64_t>() : 0;
    w.action = engine::GetString(v, {"action"});
    const Json& h = engine::Path(v, {"history"});
    if (h.is_array()) {
      for (const Json& x : h)
        if (x.is_number_unsigned()) w.history.push_back(x.get<uint64_t>());
    }
    out[k] = std::move(w);
  }
  return out;
}

}  // namespace

std::unique_ptr<engine::Reducer> MakeReducer() { return std::make_unique<OlmReducer>(); }

std::vector<engine::OptionSpec> OlmReducer::Options() const {
  return {{"globalNamespace", "openshift-marketplace",
           "the global catalog namespace: its CatalogSources serve every namespace (upstream OLM: olm)",
           false, ""}};
}

absl::Status OlmReducer::SetOption(std::string_view key, std::string_view value) {
  if (key == "globalNamespace") {
    if (value.empty()) return absl::InvalidArgumentError("globalNamespace: expected a namespace name");
    global_ns_ = std::string(value);
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(StrCat("unknown option \"", key, "\" (olm options: globalNamespace)"));
}

const LoadedCatalog& OlmReducer::Catalog(const World& world, std::string_view ns, std::string_view name) {
  std::string content = StrCat(kCatalogPrefix, ns, "/", name);
  const store::ContentFiles* files = world.Content(content);
  auto it = catalogs_.find(content);
  if (it == catalogs_.end()) it = catalogs_.emplace(content, LoadedCatalog{}).first;
  LoadedCatalog& lc = it->second;
  if (files == nullptr) {
    lc = LoadedCatalog{"", nullptr,
                       StrCat("no catalog content observed (no Content event named ", content, ")")};
    return lc;
  }
  std::string digest = world.ContentDigest(content);
  if (lc.digest == digest && (lc.index || !lc.error.empty())) return lc;
  lc = LoadedCatalog{digest, nullptr, ""};
  if (auto d = by_digest_.find(digest); d != by_digest_.end()) {
    lc.index = d->second;
    return lc;
  }
  auto idx = CatalogIndex::Load(*files);
  if (!idx.ok()) {
    lc.error = std::string(Sv(idx.status().message()));
  } else {
    lc.index = *idx;
    by_digest_[digest] = *idx;
  }
  return lc;
}

Json OlmReducer::EffectiveStatus(const engine::Object& o) const {
  const Json& seen = engine::Path(o.json(), {"status"});
  auto it = st_.statuses.find(Key(o.kind(), o.ns(), o.name()));
  if (it == st_.statuses.end()) return seen.is_object() ? seen : Json::object();
  // Observed after our write and carrying a status: the world is newer,
  // unless it is the echo of one of our earlier writes.
  if (o.seq() > it->second.seq && seen.is_object() && !seen.empty()) {
    const auto& h = it->second.history;
    if (std::find(h.begin(), h.end(), HashOf(seen)) != h.end() && seen != it->second.body)
      return it->second.body;
    return seen;
  }
  return it->second.body;
}

std::optional<Json> OlmReducer::EffectiveInstallPlan(const World& world, std::string_view ns,
                                                     std::string_view name) const {
  // Only spec.approval and the status: copying whole plans (every step)
  // per sync was a hot spot of the OLM bench.
  auto brief = [](const Json& full, Json status) {
    Json ip = Json::object();
    ip["spec"] = Json{{"approval", engine::GetString(full, {"spec", "approval"})}};
    ip["status"] = std::move(status);
    return ip;
  };
  if (const engine::Object* o = world.Get(kGroup, "InstallPlan", ns, name); o && o->json().is_object()) {
    return brief(o->json(), EffectiveStatus(*o));
  }
  if (auto it = st_.created.find(Key("InstallPlan", ns, name)); it != st_.created.end()) {
    auto s = st_.statuses.find(it->first);
    return brief(it->second.body,
                 s != st_.statuses.end() ? s->second.body : engine::Path(it->second.body, {"status"}));
  }
  return std::nullopt;
}

void OlmReducer::WriteStatus(Ctx& c, const engine::Object& o, Json status) {
  Json obj = Json::object();
  obj["apiVersion"] = engine::GetString(o.json(), {"apiVersion"}, kApiVersion);
  obj["kind"] = o.kind();
  Json meta = Json::object();
  meta["name"] = o.name();
  if (!o.ns().empty()) meta["namespace"] = o.ns();
  std::string rv = engine::GetString(o.json(), {"metadata", "resourceVersion"});
  if (!rv.empty()) meta["resourceVersion"] = rv;
  obj["metadata"] = std::move(meta);
  obj["status"] = status;
  std::string id = c.emit.UpdateStatus(obj);
  PendingWrite& w = st_.statuses[Key(o.kind(), o.ns(), o.name())];
  w.history.push_back(HashOf(status));
  if (w.history.size() > 16) w.history.erase(w.history.begin());
  w.body = std::move(status);
  w.seq = c.ev.seq;
  w.action = id;
}

void OlmReducer::Note(std::string subject, std::string kind, std::string text) const {
  notes_.push_back({std::move(subject), std::move(kind), std::move(text)});
}

// §10.2: RequiresApproval → Installing once spec.approved is true.
void OlmReducer::OnInstallPlan(Ctx& c) {
  const engine::Object* o = c.world.Get(kGroup, "InstallPlan", c.ev.ns, c.ev.name);
  if (o == nullptr || !o->json().is_object()) return;
  Json status = EffectiveStatus(*o);
  const Json& approved = engine::Path(o->json(), {"spec", "approved"});
  if (engine::GetString(status, {"phase"}) != "RequiresApproval" || !approved.is_boolean() ||
      !approved.get<bool>())
    return;
  status["phase"] = "Installing";
  status.erase("message");
  WriteStatus(c, *o, std::move(status));
  Note(StrCat("InstallPlan ", o->ns(), "/", o->name()), "state",
       "approved (spec.approved: true): Installing");
}

void OlmReducer::Reduce(const Event& ev, const World& world, Emit& emit) {
  notes_.clear();
  Ctx c{ev, world, emit};
  std::set<std::string> namespaces;
  bool all = false;
  switch (ev.type) {
    case engine::EventType::kActionResult: {
      if (ev.ok) return;
      // A failed write is forgotten, so the next sync writes again.
      for (auto* m : {&st_.statuses, &st_.created}) {
        for (auto it = m->begin(); it != m->end(); ++it) {
          if (it->second.action == ev.action) {
            m->erase(it);
            break;
          }
        }
      }
      return;
    }
    case engine::EventType::kContent: {
      std::string_view name = ev.content_name;
      if (name.substr(0, kCatalogPrefix.size()) != kCatalogPrefix) return;
      std::string_view rest = name.substr(kCatalogPrefix.size());
      std::string_view ns = rest.substr(0, rest.find('/'));
      if (ns == global_ns_) all = true;
      namespaces.insert(std::string(ns));
      break;
    }
    case engine::EventType::kAdded:
    case engine::EventType::kModified:
    case engine::EventType::kDeleted: {
      if (ev.group != kGroup) return;
      std::string_view k = ev.kind;
      if (k == "InstallPlan") {
        if (ev.type == engine::EventType::kDeleted) {
          st_.created.erase(Key("InstallPlan", ev.ns, ev.name));
          st_.statuses.erase(Key("InstallPlan", ev.ns, ev.name));
        } else {
          OnInstallPlan(c);
        }
      } else if (k == "Subscription" && ev.type == engine::EventType::kDeleted) {
        st_.statuses.erase(Key("Subscription", ev.ns, ev.name));
      } else if (k == "CatalogSource") {
        if (ev.ns == global_ns_) all = true;
      } else if (k != "Subscription" && k != "ClusterServiceVersion" && k != "OperatorGroup") {
        return;
      }
      namespaces.insert(std::string(ev.ns));
      break;
    }
    default:
      return;
  }
  if (all) {
    for (const engine::Object* s : world.List(kGroup, "Subscription"))
      namespaces.insert(std::string(s->ns()));
  }
  for (const std::string& ns : namespaces) SyncNamespace(c, ns);
}

void OlmReducer::Explain(const Event& ev, const World&, const std::vector<store::ActionRecord>&,
                         engine::Timeline& timeline) const {
  for (const auto& n : notes_)
    timeline.Add(ev.seq, ev.time_ns, std::string(kDomain), n.subject, n.kind, n.text);
}

absl::Status OlmReducer::Snapshot(engine::SnapshotWriter& writer) const {
  Json paths = Json::object();
  for (const auto& [k, v] : st_.paths) paths[k] = v;
  writer.WriteJson(Json{{"statuses", WritesToJson(st_.statuses)},
                        {"created", WritesToJson(st_.created)},
                        {"paths", paths},
                        {"global_ns", global_ns_}});
  return absl::OkStatus();
}

absl::Status OlmReducer::Restore(engine::SnapshotReader& reader) {
  auto j = reader.ReadJson();
  if (!j.ok()) return j.status();
  st_ = OlmState{};
  st_.statuses = WritesFromJson(engine::Path(*j, {"statuses"}));
  st_.created = WritesFromJson(engine::Path(*j, {"created"}));
  const Json& paths = engine::Path(*j, {"paths"});
  if (paths.is_object()) {
    for (const auto& [k, v] : paths.items()) {
      if (!v.is_array()) continue;
      for (const Json& s : v)
        if (s.is_string()) st_.paths[k].push_back(s.get<std::string>());
    }
  }
  std::string g = engine::GetString(*j, {"global_ns"});
  if (!g.empty()) global_ns_ = g;
  return absl::OkStatus();
}

}  // namespace recon::olm
