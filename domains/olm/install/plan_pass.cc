#include "domains/olm/install/plan_pass.h"

#include <set>
#include <string>
#include <utility>

#include "base/strings.h"
#include "domains/olm/install/json_values.h"
#include "domains/olm/install/step.h"
#include "engine/time_format.h"

namespace recon::olm {
namespace {

using engine::Json;

// Go's %v of a Step (Step.String()).
std::string StepText(const Json& step) {
  const Json& r = engine::Path(step, {"resource"});
  auto g = [&](const char* k) { return engine::GetString(r, {k}); };
  return StrCat(engine::GetString(step, {"resolving"}), ": ", g("name"), "[", g("group"), "/", g("version"), "/",
                g("kind"), " (", g("sourceName"), "/", g("sourceNamespace"), ")] (",
                engine::GetString(step, {"status"}), ")");
}

// The step's manifest: inline (parsed into the cache or `owned`), or, for a reference
// to an unpacked bundle ConfigMap, the manifest of the step recomputed from
// it that has the same name, kind, version and group.
// The step's manifest text parsed, through the plan's cache when there is one.
const Json& ParsedText(const std::string& text, ManifestCache* cache, Json* owned) {
  auto parse = [&] {
    auto parsed = engine::ParseJson(text);
    return parsed.ok() && parsed->is_object() ? *std::move(parsed) : Json();
  };
  if (cache == nullptr) return *owned = parse();
  auto it = cache->find(text);
  if (it == cache->end()) it = cache->emplace(text, parse()).first;
  return it->second;
}

absl::StatusOr<const Json*> Manifest(const Json& step, const std::vector<UnpackedManifests>& unpacked,
                                     ManifestCache* cache, Json* owned) {
  const Json& resource = engine::Path(step, {"resource"});
  const Json& m = ParsedText(engine::GetString(resource, {"manifest"}), cache, owned);
  if (!m.is_object())
    return absl::InvalidArgumentError(
        StrCat("error parsing step manifest: ", engine::GetString(resource, {"name"})));
  bool reference = engine::GetString(m, {"kind"}) == "ConfigMap" && !engine::GetString(m, {"name"}).empty() &&
                   !engine::GetString(m, {"namespace"}).empty() &&
                   !engine::GetString(m, {"catalogSourceName"}).empty() &&
                   !engine::GetString(m, {"catalogSourceNamespace"}).empty();
  if (!reference) return &m;
  std::string cm = StrCat(engine::GetString(m, {"namespace"}), "/", engine::GetString(m, {"name"}));
  for (const UnpackedManifests& u : unpacked) {
    if (u.configmap != cm) continue;
    for (size_t i = 0; i < u.steps->size(); ++i) {
      const Json& cr = engine::Path((*u.steps)[i], {"resource"});
      bool same = true;
      for (const char* k : {"name", "kind", "version", "group"})
        same &= engine::GetString(cr, {k}) == engine::GetString(resource, {k});
      if (!same) continue;
      if (u.manifests != nullptr && !(*u.manifests)[i].is_null()) return &(*u.manifests)[i];
      auto again = engine::ParseJson(engine::GetString(cr, {"manifest"}));
      if (!again.ok()) return again.status();
      *owned = *std::move(again);
      return owned;
    }
  }
  return absl::NotFoundError(StrCat("couldn't find unpacked step for ", StepText(step)));
}

// The view a pass reads: the caller's, plus the creates this pass has
// made so far (in flight: a later step owned by a CSV created earlier in
// the pass waits for it, as it would for one created in an earlier pass).
class PassView : public ClusterView {
 public:
  explicit PassView(const ClusterView& base) : base_(base) {}
  void Created(const Json& o) {
    std::string api = engine::GetString(o, {"apiVersion"});
    std::string group = api.find('/') == std::string::npos ? "" : api.substr(0, api.find('/'));
    created_.insert(StrCat(group, "/", engine::GetString(o, {"kind"}), "/",
                           engine::GetString(o, {"metadata", "namespace"}), "/",
                           engine::GetString(o, {"metadata", "name"})));
  }
  const Json* Get(std::string_view group, std::string_view kind, std::string_view ns,
                  std::string_view name) const override {
    return base_.Get(group, kind, ns, name);
  }
  std::vector<const Json*> List(std::string_view group, std::string_view kind, std::string_view ns) const override {
    return base_.List(group, kind, ns);
  }
  OwnCreate CreateOf(std::string_view group, std::string_view kind, std::string_view ns,
                     std::string_view name) const override {
    if (created_.contains(StrCat(group, "/", kind, "/", ns, "/", name))) return OwnCreate{OwnCreate::kInFlight, ""};
    return base_.CreateOf(group, kind, ns, name);
  }
  std::optional<bool> Namespaced(std::string_view group, std::string_view version,
                                 std::string_view kind) const override {
    return base_.Namespaced(group, version, kind);
  }

 private:
  const ClusterView& base_;
  std::set<std::string> created_;
};

}  // namespace

std::shared_ptr<const std::vector<Json>> ParsedManifests(const std::vector<Json>& steps) {
  auto out = std::make_shared<std::vector<Json>>();
  out->reserve(steps.size());
  for (const Json& s : steps) {
    auto parsed = engine::ParseJson(engine::GetString(s, {"resource", "manifest"}));
    out->push_back(parsed.ok() ? *std::move(parsed) : Json());
  }
  return out;
}

PassResult ExecutePass(const Json& ip, const ClusterView& view, const std::vector<UnpackedManifests>& unpacked,
                       const PassOptions& options) {
  PassResult out;
  const Json& plan = engine::Path(ip, {"status", "plan"});
  if (plan.is_array()) out.plan = plan;
  PassView pass_view(view);
  StepContext c{pass_view, options};
  c.ip_ns = engine::GetString(ip, {"metadata", "namespace"});
  c.ip_name = engine::GetString(ip, {"metadata", "name"});
  const Json& names = engine::Path(ip, {"spec", "clusterServiceVersionNames"});
  for (const Json& n : ArrayOrEmpty(names))
    if (n.is_string()) c.csv_names.push_back(n.get<std::string>());
  for (size_t i = 0; i < out.plan.size(); ++i) {
    Json& step = out.plan[i];
    const Json& r = engine::Path(step, {"resource"});
    c.resolving = engine::GetString(step, {"resolving"});
    c.group = engine::GetString(r, {"group"});
    c.version = engine::GetString(r, {"version"});
    c.kind = engine::GetString(r, {"kind"});
    c.name = engine::GetString(r, {"name"});
    c.status = engine::GetString(step, {"status"});
    const bool crd = c.kind == "CustomResourceDefinition";
    Json owned;
    absl::StatusOr<const Json*> manifest = Manifest(step, unpacked, options.manifests, &owned);
    if (!manifest.ok()) {
      out.error = manifest.status();
      break;
    }
    if (!crd) {
      if (c.status == "Present" || c.status == "Created" || c.status == "WaitingForApi") continue;
      if (c.status != "Unknown" && c.status != "NotPresent") {
        out.error = absl::InvalidArgumentError("the InstallPlan contains invalid data");
        break;
      }
    }
    // The steps' own copy: the bundle's parsed manifests stay as they are.
    Json m = *manifest == &owned ? std::move(owned) : **manifest;
    StepOutcome o = crd ? ApplyCrdStep(c, std::move(m)) : ApplyObjectStep(c, std::move(m));
    step["status"] = o.status;
    if (o.write) {
      o.write->step = i;
      if (o.write->verb == "create") pass_view.Created(o.write->object);
      out.writes.push_back(*std::move(o.write));
    }
    out.waiting_for_api |= o.waiting_for_api;
    if (o.in_flight && !out.in_flight) out.waiting_for = o.waiting_for;
    out.in_flight |= o.in_flight;
    if (!o.error.ok()) {
      out.error = o.error;
      break;
    }
  }
  return out;
}

void SetPlanCondition(Json& status, std::string_view type, std::string_view cstatus, std::string_view reason,
                      std::string_view message, int64_t now_ns) {
  if (!status.contains("conditions") || !status["conditions"].is_array()) status["conditions"] = Json::array();
  const std::string now = engine::FormatRfc3339Seconds(now_ns);
  Json c = Json{{"type", type}, {"status", cstatus}};
  if (!reason.empty()) c["reason"] = reason;
  if (!message.empty()) c["message"] = message;
  c["lastUpdateTime"] = now;
  for (Json& old : status["conditions"]) {
    if (engine::GetString(old, {"type"}) != type) continue;
    bool same = engine::GetString(old, {"status"}) == cstatus && old.contains("lastTransitionTime");
    c["lastTransitionTime"] = same ? old["lastTransitionTime"] : Json(now);
    old = std::move(c);
    return;
  }
  c["lastTransitionTime"] = now;
  status["conditions"].push_back(std::move(c));
}

Json InstallingOutcome(const Json& status, const PassResult& pass, int64_t now_ns, int64_t timeout_ns) {
  Json out = status.is_object() ? status : Json::object();
  if (engine::GetString(out, {"startTime"}).empty()) out["startTime"] = engine::FormatRfc3339Seconds(now_ns);
  out["plan"] = pass.plan;
  if (!pass.error.ok()) {
    std::string err(pass.error.message());
    auto start = engine::ParseRfc3339(engine::GetString(out, {"startTime"}));
    if (start.ok() && now_ns - *start >= timeout_ns) {
      out["phase"] = "Failed";
      SetPlanCondition(out, "Installed", "False", "InstallComponentFailed", err, now_ns);
      out["message"] = err;
    } else {
      out["message"] = StrCat("retrying execution due to error: ", err);
    }
    return out;
  }
  if (pass.waiting_for_api || pass.in_flight) return out;
  out["phase"] = "Complete";
  SetPlanCondition(out, "Installed", "True", "", "", now_ns);
  out.erase("message");  // "" is omitted
  return out;
}

}  // namespace recon::olm
