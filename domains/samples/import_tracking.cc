// Import tracking (reference §12): one ConfigMap per imagestream in the
// operator namespace while pending or failed, importImage retries of
// failed tags, and the re-import timer that stands in for the informers'
// 10-minute resync.
#include <set>

#include "base/strings.h"
#include "domains/samples/names.h"
#include "domains/samples/reducer.h"

namespace recon::samples {
namespace {

constexpr int64_t kRetryAfterNs = 10 * kNsPerMinute;     // a retry is due after more than this
constexpr int64_t kReimportEveryNs = 15 * kNsPerMinute;  // resync lands 10–20 min after a retry

int64_t Generation(const Json& c) {
  const Json& g = engine::Path(c, {"generation"});
  return g.is_number_integer() ? g.get<int64_t>() : 0;
}

// The ImageStreamImport that re-imports `tag` of `is`, following
// ImageStreamTag references inside the stream; nullopt when there is
// nothing importable (no such tag, no from, a cycle, a non-Docker end).
std::optional<Json> BuildImport(const Json& is, const std::string& tag) {
  std::map<std::string, const Json*> tags;
  const Json& spec_tags = engine::Path(is, {"spec", "tags"});
  if (spec_tags.is_array())
    for (const Json& t : spec_tags) tags[engine::GetString(t, {"name"})] = &t;
  std::string cur = tag;
  std::set<std::string> seen;
  while (true) {
    auto it = tags.find(cur);
    if (it == tags.end()) return std::nullopt;
    const Json& from = engine::Path(*it->second, {"from"});
    if (!from.is_object()) return std::nullopt;
    std::string kind = engine::GetString(from, {"kind"});
    if (kind == "ImageStreamTag") {
      if (!seen.insert(cur).second) return std::nullopt;  // cycle
      std::string ref = engine::GetString(from, {"name"});
      size_t colon = ref.find(':');
      std::string next = colon == std::string::npos ? ref : ref.substr(colon + 1);
      cur = next.empty() ? "latest" : next;
      if (seen.contains(cur)) return std::nullopt;
      continue;
    }
    if (kind != "DockerImage") return std::nullopt;
    Json policy = Json::object();
    const Json& ip = engine::Path(*it->second, {"importPolicy"});
    for (std::string_view k : {"insecure", "scheduled"}) {
      const Json& v = engine::Path(ip, {k});
      if (v.is_boolean() && v.get<bool>()) policy[std::string(k)] = true;
    }
    Json image = Json::object();
    image["from"] = Json{{"kind", "DockerImage"}, {"name", engine::GetString(from, {"name"})}};
    image["to"] = Json{{"name", cur}};
    image["importPolicy"] = std::move(policy);
    image["referencePolicy"] = Json{{"type", "Local"}};
    Json meta = Json::object();
    meta["name"] = engine::GetString(is, {"metadata", "name"});
    meta["namespace"] = engine::GetString(is, {"metadata", "namespace"});
    std::string rv = engine::GetString(is, {"metadata", "resourceVersion"});
    if (!rv.empty()) meta["resourceVersion"] = rv;
    Json out = Json::object();
    out["apiVersion"] = kImageApiVersion;
    out["kind"] = "ImageStreamImport";
    out["metadata"] = std::move(meta);
    out["spec"] = Json{{"import", true}, {"images", Json::array({std::move(image)})}};
    return out;
  }
}

}  // namespace

void SamplesReducer::DeleteConfigMapIfPresent(Ctx& c, std::string_view name) {
  if (c.world.Get("", "ConfigMap", kOperatorNs, name) == nullptr) return;
  Json o = Json::object();
  o["apiVersion"] = "v1";
  o["kind"] = "ConfigMap";
  o["metadata"] = Json{{"name", name}, {"namespace", kOperatorNs}};
  Write(c, "delete", o);
}

void SamplesReducer::ProcessImportStatus(Ctx& c, const Cfg& cfg, const engine::Object& is) {
  const std::string name(is.name());
  if (cfg.skipped_streams.contains(name)) {
    DeleteConfigMapIfPresent(c, name);
    st_.failing.erase(name);
    return;
  }
  // Evaluated once, before the tags: retry times are per stream.
  auto last = st_.retry_ns.find(name);
  const bool retry_due = last == st_.retry_ns.end() || c.now - last->second > kRetryAfterNs;
  const engine::Object* cm = c.world.Get("", "ConfigMap", kOperatorNs, name);
  const bool error_cm = cm && cm->Label(kImportErrorLabel) == "true";

  std::vector<std::pair<std::string, std::string>> failed;
  std::vector<std::string> clear;
  const Json& status_tags = engine::Path(is.json(), {"status", "tags"});
  if (status_tags.is_array()) {
    for (const Json& t : status_tags) {
      std::string tag = engine::GetString(t, {"tag"});
      const Json& conds = engine::Path(t, {"conditions"});
      int64_t latest = 0, err_gen = 0;
      std::string message;
      if (conds.is_array()) {
        for (const Json& cond : conds) {
          int64_t g = Generation(cond);
          latest = std::max(latest, g);
          if (engine::GetString(cond, {"status"}) == "False" && g >= err_gen) {
            err_gen = g;
            message = engine::GetString(cond, {"message"});
          }
        }
      }
      if (err_gen > 0 && err_gen >= latest) {
        failed.emplace_back(tag, message);
      } else {
        clear.push_back(tag);
      }
    }
  }
  if (failed.empty()) {
    st_.failing.erase(name);
    DeleteConfigMapIfPresent(c, name);
    return;
  }
  st_.failing.insert(name);
  if (!error_cm || retry_due) {
    st_.retry_ns[name] = c.now;
    for (const auto& [tag, message] : failed) {
      auto import = BuildImport(is.json(), tag);
      if (!import) continue;
      // Not a write of the object: the image API runs the import (verb importImage).
      st_.import_actions[c.emit.Object("importImage", *import)] = name;
    }
  }
  Json data = cm ? engine::Path(cm->json(), {"data"}) : Json::object();
  if (!data.is_object()) data = Json::object();
  for (const auto& tag : clear) data.erase(tag);
  for (const auto& [tag, message] : failed) data[tag] = message;
  if (cm == nullptr) {
    Json o = Json::object();
    o["apiVersion"] = "v1";
    o["kind"] = "ConfigMap";
    o["metadata"] =
        Json{{"name", name}, {"namespace", kOperatorNs}, {"labels", Json{{kImportErrorLabel, "true"}}}};
    o["data"] = std::move(data);
    Write(c, "create", o);
    return;
  }
  if (error_cm && engine::Path(cm->json(), {"data"}) == data) return;
  Json o = cm->json();
  o.erase("status");
  o["metadata"]["labels"][std::string(kImportErrorLabel)] = "true";
  o["data"] = std::move(data);
  Write(c, "update", o);
}

void SamplesReducer::OnReimportTimer(Ctx& c) {
  auto read = ReadConfig(c.world);
  if (!read) return;
  Cfg& cfg = *read;
  if (!engine::GetString(cfg.obj->json(), {"metadata", "deletionTimestamp"}).empty()) return;
  if (cfg.mgmt == kRemoved || cfg.mgmt == kUnmanaged) return;
  // As the resync would: re-deliver every stream still failing.
  std::vector<std::string> names(st_.failing.begin(), st_.failing.end());
  for (const auto& n : names) {
    const engine::Object* is = c.world.Get(kImageGroup, "ImageStream", kSamplesNs, n);
    if (is == nullptr) {
      st_.failing.erase(n);
      continue;
    }
    ProcessImportStatus(c, cfg, *is);
  }
}

void SamplesReducer::ScheduleReimport(Ctx& c) {
  int64_t next = 0;
  for (const auto& n : st_.failing) {
    auto it = st_.retry_ns.find(n);
    if (it == st_.retry_ns.end()) continue;
    int64_t at = it->second + kReimportEveryNs;
    if (next == 0 || at < next) next = at;
  }
  if (next == 0) return;
  if (next <= c.now) next = c.now + kReimportEveryNs;
  // One pending timer at a time; an earlier one reschedules when it fires.
  if (st_.reimport_timer_ns != 0 && st_.reimport_timer_ns <= next) return;
  st_.reimport_timer_ns = next;
  c.emit.SetTimer(kReimportTimer, next);
}

}  // namespace recon::samples
