// executePlans: a plan's bundle lookups unpacked (docs/notes/
// olm-bundle-unpack-v0.24.0.md §4): the ConfigMap, Role, RoleBinding and
// Job of each image ensured in its catalog's namespace, the lookup moved on
// as the Job goes, and an unpacked bundle's steps appended to the plan with
// manifests that refer to the ConfigMap.
#include <string>
#include <utility>
#include <vector>

#include "base/strings.h"
#include "domains/olm/install/bundle_lookup.h"
#include "domains/olm/install/bundle_steps.h"
#include "domains/olm/install/plan_pass.h"
#include "domains/olm/plan_view.h"
#include "domains/olm/reducer.h"

namespace recon::olm {
namespace {

bool ConditionTrue(const Json& lookup, std::string_view type) {
  for (const Json& c : ArrayOrEmpty(engine::Path(lookup, {"conditions"})))
    if (engine::GetString(c, {"type"}) == type) return engine::GetString(c, {"status"}) == "True";
  return false;
}

// An object's body parsed for this call only (null JSON if unparseable,
// as Object::json gives), nullopt for no object.
std::optional<Json> ParseOrNull(const engine::Object* o) {
  if (o == nullptr) return std::nullopt;
  auto parsed = engine::ParseJson(o->body());
  return parsed.ok() ? *std::move(parsed) : Json();
}

// The manifest a step of an unpacked bundle carries: a reference to its
// ConfigMap (keys in upstream's order, none omitted).
std::string Reference(const Json& lookup, const std::string& cm) {
  return engine::Dump(Json{{"kind", "ConfigMap"},
                           {"name", cm},
                           {"namespace", engine::GetString(lookup, {"catalogSourceRef", "namespace"})},
                           {"catalogSourceName", engine::GetString(lookup, {"catalogSourceRef", "name"})},
                           {"catalogSourceNamespace", engine::GetString(lookup, {"catalogSourceRef", "namespace"})},
                           {"replaces", engine::GetString(lookup, {"replaces"})},
                           {"properties", engine::GetString(lookup, {"properties"})}});
}

}  // namespace

void OlmReducer::EnsureUnpack(Ctx& c, const Json& ip, const Json& lookup, const std::string& plan_key) {
  const std::string path = engine::GetString(lookup, {"path"});
  const std::string cns = engine::GetString(lookup, {"catalogSourceRef", "namespace"});
  const engine::Object* catalog =
      c.world.Get(kGroup, "CatalogSource", cns, engine::GetString(lookup, {"catalogSourceRef", "name"}));
  if (catalog == nullptr) return;
  const std::string name = UnpackName(path);
  PlanWorldView view(c.world, st_.step_creates, c.ev.seq);
  // `make` builds the object only when it is to be created.
  auto ensure = [&](std::string_view group, std::string_view kind, const auto& make) {
    if (view.Observed(group, kind, cns, name)) return;
    OwnCreate own = view.CreateOf(group, kind, cns, name);
    if (own.state == OwnCreate::kInFlight || own.state == OwnCreate::kLanded) return;
    // Refused (a 4xx): the same create would be refused again. Said, and
    // left until a change of the object (the engine's LastRefused) or of
    // the plan; never sent again at every 5 s requeue.
    if (own.state == OwnCreate::kFailed) {
      c.emit.Note(StrCat("InstallPlan ", plan_key), "wait",
                  StrCat("create ", kind, " ", cns, "/", name, " refused: ", own.error));
      return;
    }
    std::string id = c.emit.Create(make());
    PutStepCreate(StepObjectKey(group, kind, cns, name), plan_key, c.ev.seq, id);
    c.emit.Note(StrCat("InstallPlan ", plan_key), "step", StrCat("create ", kind, " ", cns, "/", name, " to unpack ", path));
  };
  ensure("", "ConfigMap", [&] { return UnpackConfigMap(path, catalog->json()); });
  const engine::Object* cm = c.world.Get("", "ConfigMap", cns, name);
  if (cm == nullptr || !engine::IsJsonObject(cm->body()))
    return;  // the others are owned by it: its uid first
  const std::string uid = engine::PeekString(cm->body(), {"metadata", "uid"}).value_or("");
  ensure("rbac.authorization.k8s.io", "Role", [&] { return UnpackRole(path, cns, uid); });
  ensure("rbac.authorization.k8s.io", "RoleBinding", [&] { return UnpackRoleBinding(path, cns, uid); });
  UnpackOptions options;
  ensure("batch", "Job",
         [&] { return UnpackJob(path, catalog->json(), uid, options, UnpackTimeout(ip, options.timeout_ns)); });
}

std::optional<absl::StatusOr<UnpackedManifests>> OlmReducer::StepsOf(const std::string& plan_key,
                                                                     const engine::Object* cm,
                                                                     const Json& lookup,
                                                                     const std::vector<Json>* objects,
                                                                     const std::string& ns) {
  // Everything LookupContent and BundleSteps read besides the objects,
  // which the ConfigMap's resourceVersion stands for.
  const std::string rv =
      cm == nullptr ? "" : engine::PeekString(cm->body(), {"metadata", "resourceVersion"}).value_or("");
  const std::string key = cm == nullptr ? "" : StrCat(plan_key, "#", cm->ns(), "/", cm->name());
  const std::string sig = StrCat(rv, "\x1f", ns, "\x1f", engine::GetString(lookup, {"identifier"}), "\x1f",
                                 engine::GetString(lookup, {"replaces"}), "\x1f",
                                 engine::GetString(lookup, {"catalogSourceRef", "name"}), "\x1f",
                                 engine::GetString(lookup, {"catalogSourceRef", "namespace"}), "\x1f",
                                 engine::GetString(lookup, {"properties"}));
  if (!rv.empty())
    if (auto it = steps_memo_.find(key); it != steps_memo_.end() && it->second.sig == sig)
      return it->second.steps;
  // The bundle's objects, parsed from the ConfigMap's body here and not
  // kept (the steps are): the World keeps no parse of it either.
  std::optional<absl::StatusOr<std::vector<Json>>> loaded;
  if (objects == nullptr) {
    if (cm == nullptr) return std::nullopt;
    auto parsed = engine::ParseJson(cm->body());
    loaded = LoadBundleConfigMap(parsed.ok() ? *parsed : Json());
    if (!loaded->ok()) return std::nullopt;
    objects = &**loaded;
  }
  absl::StatusOr<UnpackedManifests> steps;
  auto content = LookupContent(lookup, *objects);
  if (!content.ok()) {
    steps = content.status();
  } else if (auto made = BundleSteps(*content, ns); made.ok()) {
    UnpackedManifests u;
    u.steps = std::make_shared<const std::vector<Json>>(*std::move(made));
    u.manifests = ParsedManifests(*u.steps);
    steps = std::move(u);
  } else {
    steps = made.status();
  }
  if (!rv.empty()) steps_memo_.insert_or_assign(key, StepsMemo{sig, steps});
  return steps;
}

OlmReducer::Unpacked OlmReducer::UnpackLookups(Ctx& c, const Json& ip, const std::string& plan_key) {
  Unpacked out;
  out.lookups = engine::Path(ip, {"status", "bundleLookups"});
  const std::string ns = engine::GetString(ip, {"metadata", "namespace"});
  for (Json& lookup : out.lookups) {
    const std::string cns = engine::GetString(lookup, {"catalogSourceRef", "namespace"});
    const std::string name = UnpackName(engine::GetString(lookup, {"path"}));
    if (ConditionTrue(lookup, "BundleLookupPending")) EnsureUnpack(c, ip, lookup, plan_key);
    UnpackView v;
    const engine::Object* catalog =
        c.world.Get(kGroup, "CatalogSource", cns, engine::GetString(lookup, {"catalogSourceRef", "name"}));
    const engine::Object* job = c.world.Get("batch", "Job", cns, name);
    const engine::Object* cm = c.world.Get("", "ConfigMap", cns, name);
    v.catalog = catalog ? &catalog->json() : nullptr;
    // The Job and the ConfigMap are read only while the lookup waits on the
    // Job (then the ConfigMap's data become the bundle's objects): parsed
    // here, not kept in the World, where their parses (the bundle's
    // manifests, a pod spec) outlived the plan.
    std::optional<Json> job_json, cm_json;
    if (ConditionTrue(lookup, "BundleLookupPending")) {
      job_json = ParseOrNull(job);
      cm_json = ParseOrNull(cm);
    }
    v.job = job_json ? &*job_json : nullptr;
    v.configmap = cm_json ? &*cm_json : nullptr;
    LookupAdvance adv = AdvanceLookup(lookup, v, c.ev.time_ns);
    if (!adv.error.ok()) {
      out.error = std::string(adv.error.message());
      continue;
    }
    if (adv.failed) {
      for (const Json& cond : ArrayOrEmpty(engine::Path(adv.lookup, {"conditions"})))
        if (engine::GetString(cond, {"type"}) == "BundleLookupFailed") {
          out.failed_reason = engine::GetString(cond, {"reason"});
          out.failed_message = engine::GetString(cond, {"message"});
        }
      out.failed = true;
    }
    // The steps of a bundle unpacked now, or before (to resolve references).
    std::optional<std::vector<Json>> fresh = std::move(adv.objects);
    std::optional<absl::StatusOr<UnpackedManifests>> made;
    if (fresh) {
      made = StepsOf(plan_key, cm, adv.lookup, &*fresh, ns);
    } else if (!ConditionTrue(adv.lookup, "BundleLookupPending") && !adv.failed && cm != nullptr) {
      made = StepsOf(plan_key, cm, adv.lookup, nullptr, ns);
    }
    if (made) {
      absl::StatusOr<UnpackedManifests>& steps = *made;
      if (!steps.ok()) {
        const std::string msg(steps.status().message());
        if (msg.find(" missing APIVersion") != std::string::npos || msg.find(" missing Kind") != std::string::npos) {
          out.fatal = msg;
        } else {
          out.error = StrCat("failed to turn bundle into steps: ", msg);
        }
        continue;
      }
      const std::string cm_key = StrCat(cns, "/", name);
      if (ConditionTrue(adv.lookup, "BundleLookupNotPersisted")) {
        if (!out.plan) out.plan = engine::Path(ip, {"status", "plan"});
        Json& plan = *out.plan;
        if (!plan.is_array()) plan = Json::array();
        for (Json s : *steps->steps) {
          s["resource"]["manifest"] = Reference(adv.lookup, name);
          plan.push_back(std::move(s));
        }
        Json kept = Json::array();
        for (Json& cond : adv.lookup["conditions"])
          if (engine::GetString(cond, {"type"}) != "BundleLookupNotPersisted") kept.push_back(std::move(cond));
        if (kept.empty()) {
          adv.lookup.erase("conditions");
        } else {
          adv.lookup["conditions"] = std::move(kept);
        }
      }
      steps->configmap = cm_key;
      out.unpacked.push_back(*std::move(steps));
    } else if (!adv.failed) {
      out.all_unpacked = false;
    }
    lookup = std::move(adv.lookup);
  }
  if (!out.error.empty()) {  // no lookup's status is written
    out.lookups = engine::Path(ip, {"status", "bundleLookups"});
    out.plan.reset();
  }
  return out;
}

Json OlmReducer::Unpacked::StatusOver(const Json& status) const {
  Json out = status.is_object() ? status : Json::object();
  out["bundleLookups"] = lookups;
  if (plan) out["plan"] = *plan;
  return out;
}

}  // namespace recon::olm
