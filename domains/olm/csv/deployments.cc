#include "domains/olm/csv/deployments.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "base/go_quote.h"
#include "base/strings.h"
#include "domains/olm/install/bundle_steps.h"

namespace recon::olm {
namespace {

using engine::Json;

constexpr char kCsvKind[] = "ClusterServiceVersion";

// `o[key]`, made an object first when it is not one (a malformed field
// must not make operator[] throw).
Json& Child(Json& o, const char* key) {
  Json& c = o[key];
  if (!c.is_object()) c = Json::object();
  return c;
}

const Json& ArrayAt(const Json& j, std::initializer_list<std::string_view> keys) {
  static const Json kEmpty = Json::array();
  const Json& a = engine::Path(j, keys);
  return a.is_array() ? a : kEmpty;
}

int64_t Int(const Json& j, std::initializer_list<std::string_view> keys) {
  const Json& v = engine::Path(j, keys);
  return v.is_number() ? v.get<int64_t>() : 0;
}

std::string Text(const Json& v) { return v.is_string() ? v.get<std::string>() : engine::Dump(v); }

// Go's reflect.DeepEqual against a zero struct: an object whose members
// are all nil. An empty list ([]) is not nil.
bool IsZero(const Json& j) {
  if (!j.is_object()) return false;
  return std::all_of(j.begin(), j.end(), [](const Json& v) { return v.is_null(); });
}

template <typename F>
void ForEachContainer(Json& pod, F f) {
  if (!pod.contains("containers") || !pod["containers"].is_array()) return;
  for (Json& c : pod["containers"])
    if (c.is_object()) f(c);
}

// upstream's mergeEnvVars: new values win; the container's names keep
// their place, new names follow in the given order. Go quirks kept: a name
// repeated in the container yields a zero EnvVar after its first place, a
// name repeated in `added` is appended each time.
void MergeEnv(Json& container, const std::vector<Json>& added) {
  const Json& current = ArrayAt(container, {"env"});
  std::map<std::string, Json> by_name;
  for (const Json& e : current) by_name[engine::GetString(e, {"name"})] = e;
  for (const Json& e : added) by_name[engine::GetString(e, {"name"})] = e;
  Json out = Json::array();
  for (const Json& e : current) {
    auto it = by_name.find(engine::GetString(e, {"name"}));
    out.push_back(it == by_name.end() ? Json{{"name", ""}} : it->second);
    if (it != by_name.end()) by_name.erase(it);
  }
  for (const Json& e : added) {
    auto it = by_name.find(engine::GetString(e, {"name"}));
    if (it != by_name.end()) out.push_back(it->second);
  }
  if (out.empty()) {
    container.erase("env");  // Go's omitempty
  } else {
    container["env"] = std::move(out);
  }
}

// Volumes and volumeMounts: an item named as one already there replaces
// it, else it is appended (only the original items are searched).
void MergeByName(Json& owner, const char* key, const Json& added) {
  if (!added.is_array() || added.empty()) return;
  Json& list = owner[key];
  if (!list.is_array()) list = Json::array();
  const size_t original = list.size();
  for (const Json& item : added) {
    const std::string name = engine::GetString(item, {"name"});
    size_t i = 0;
    while (i < original && engine::GetString(list[i], {"name"}) != name) ++i;
    if (i < original) {
      list[i] = item;
    } else {
      list.push_back(item);
    }
  }
}

// Go's DeepEqual of two Tolerations: absent and "" are the same string.
bool SameToleration(const Json& a, const Json& b) {
  for (std::string_view k : {"key", "operator", "value", "effect"})
    if (engine::GetString(a, {k}) != engine::GetString(b, {k})) return false;
  return engine::Path(a, {"tolerationSeconds"}) == engine::Path(b, {"tolerationSeconds"});
}

void MergeTolerations(Json& pod, const Json& added) {
  if (!added.is_array() || added.empty()) return;
  Json& list = pod["tolerations"];
  if (!list.is_array()) list = Json::array();
  const Json original = list;
  for (const Json& t : added)
    if (std::none_of(original.begin(), original.end(), [&](const Json& o) { return SameToleration(o, t); }))
      list.push_back(t);
}

// inject.OverrideDeploymentAffinity, its quirk included: an empty
// podAntiAffinity override clears the whole pod affinity.
void OverrideAffinity(Json& pod, const Json& affinity) {
  if (affinity.is_null()) return;
  const Json& current = engine::Path(pod, {"affinity"});
  // A pod without affinity takes the override whole; an empty override
  // clears the pod's.
  if (!current.is_object() || IsZero(current) || IsZero(affinity)) {
    if (IsZero(affinity)) {
      pod.erase("affinity");
    } else {
      pod["affinity"] = affinity;
    }
    return;
  }
  Json& cur = pod["affinity"];
  for (const char* key : {"nodeAffinity", "podAffinity"}) {
    const Json& sub = engine::Path(affinity, {key});
    if (sub.is_null()) continue;
    if (IsZero(sub)) {
      cur.erase(key);
    } else {
      cur[key] = sub;
    }
  }
  const Json& anti = engine::Path(affinity, {"podAntiAffinity"});
  if (!anti.is_null()) {
    if (IsZero(anti)) {
      pod.erase("affinity");
      return;
    }
    cur["podAntiAffinity"] = anti;
  }
  if (IsZero(cur)) pod.erase("affinity");
}

// §B.3.1 step 5: the Subscription's config, then the cluster proxy.
void ApplyOverrides(Json& pod, const DeploymentOverrides& o) {
  const Json& config = o.config;
  std::vector<Json> env(ArrayAt(config, {"env"}).begin(), ArrayAt(config, {"env"}).end());
  // A Subscription setting any proxy variable owns all three.
  const bool overridden = std::any_of(env.begin(), env.end(), [](const Json& e) {
    const std::string n = engine::GetString(e, {"name"});
    return n == "HTTP_PROXY" || n == "HTTPS_PROXY" || n == "NO_PROXY";
  });
  if (!overridden && o.proxy) {
    const std::pair<const char*, const std::string*> vars[] = {{"HTTP_PROXY", &o.proxy->http_proxy},
                                                               {"HTTPS_PROXY", &o.proxy->https_proxy},
                                                               {"NO_PROXY", &o.proxy->no_proxy}};
    for (const auto& [name, value] : vars)
      if (!value->empty()) env.push_back(Json{{"name", name}, {"value", *value}});
  }
  ForEachContainer(pod, [&](Json& c) { MergeEnv(c, env); });
  MergeByName(pod, "volumes", engine::Path(config, {"volumes"}));
  ForEachContainer(pod,
                   [&](Json& c) { MergeByName(c, "volumeMounts", engine::Path(config, {"volumeMounts"})); });
  MergeTolerations(pod, engine::Path(config, {"tolerations"}));
  if (const Json& r = engine::Path(config, {"resources"}); !r.is_null())
    ForEachContainer(pod, [&](Json& c) { c["resources"] = r; });
  if (const Json& s = engine::Path(config, {"nodeSelector"}); !s.is_null()) pod["nodeSelector"] = s;
  OverrideAffinity(pod, engine::Path(config, {"affinity"}));
}

// Upstream's shape over the canonical spec (install/'s RbacHash).
std::string SpecHash(const Json& spec) { return RbacHash(CanonicalJson(spec)); }

const Json* Condition(const Json& deployment, std::string_view type) {
  for (const Json& c : ArrayAt(deployment, {"status", "conditions"}))
    if (engine::GetString(c, {"type"}) == type) return &c;
  return nullptr;
}

// The CSV annotations check of §B.3.3, in the CSV's annotation order
// (upstream walks a Go map: with several failures, which one it reports
// varies).
std::optional<std::string> AnnotationsMissing(const Json& csv, const Json& live) {
  const Json& want = engine::Path(csv, {"metadata", "annotations"});
  if (!want.is_object() || want.empty()) return std::nullopt;
  const Json& have = engine::Path(live, {"spec", "template", "metadata", "annotations"});
  // An empty map does not survive the API server: it reads back as nil.
  if (!have.is_object() || have.empty()) return "no annotations found on deployment";
  for (auto it = want.begin(); it != want.end(); ++it) {
    if (!have.contains(it.key()))
      return StrCat("annotations on deployment does not contain expected key: ", it.key());
    const Json& found = have[it.key()];
    if (found != it.value())
      return StrCat("unexpected annotation on deployment. Expected ", it.key(), ":", Text(it.value()),
                    ", found ", it.key(), ":", Text(found));
  }
  return std::nullopt;
}

}  // namespace

Json CsvDeployment(const Json& csv, const Json& entry, const DeploymentOverrides& overrides) {
  const std::string csv_name = engine::GetString(csv, {"metadata", "name"});
  const std::string csv_ns = engine::GetString(csv, {"metadata", "namespace"});
  const Json& entry_spec = engine::Path(entry, {"spec"});
  Json spec = entry_spec.is_object() ? entry_spec : Json::object();
  Json& tmpl_meta = Child(Child(spec, "template"), "metadata");
  // The pod template's annotations, the CSV's winning: the pods see
  // olm.targetNamespaces, olm.operatorGroup, ...
  Json annotations = tmpl_meta["annotations"].is_object() ? tmpl_meta["annotations"] : Json::object();
  const Json& csv_annotations = engine::Path(csv, {"metadata", "annotations"});
  if (csv_annotations.is_object())
    for (auto it = csv_annotations.begin(); it != csv_annotations.end(); ++it)
      annotations[it.key()] = it.value();
  if (annotations.empty()) {
    tmpl_meta.erase("annotations");  // Go's omitempty
  } else {
    tmpl_meta["annotations"] = std::move(annotations);
  }
  if (tmpl_meta.empty()) spec["template"].erase("metadata");

  Json& pod = Child(spec["template"], "spec");
  ApplyOverrides(pod, overrides);
  const std::vector<Json> condition_env = {Json{{"name", "OPERATOR_CONDITION_NAME"}, {"value", csv_name}}};
  ForEachContainer(pod, [&](Json& c) { MergeEnv(c, condition_env); });
  // OLM does not roll back: one old ReplicaSet is enough.
  spec["revisionHistoryLimit"] = 1;

  // The entry's labels, then the owner labels over them.
  const Json& entry_labels = engine::Path(entry, {"label"});
  Json labels = entry_labels.is_object() ? entry_labels : Json::object();
  labels["olm.owner"] = csv_name;
  labels["olm.owner.namespace"] = csv_ns;
  labels["olm.owner.kind"] = kCsvKind;
  labels[std::string(kDeploymentSpecHashLabel)] = SpecHash(spec);
  const Json owner = CsvOwnerRef(csv_name, engine::GetString(csv, {"metadata", "uid"}));
  return Json{{"apiVersion", "apps/v1"},
              {"kind", "Deployment"},
              {"metadata",
               {{"name", engine::GetString(entry, {"name"})},
                {"namespace", csv_ns},
                {"labels", std::move(labels)},
                {"ownerReferences", Json::array({owner})}}},
              {"spec", std::move(spec)}};
}

bool HasCsvOwnerLabels(const Json& deployment, const Json& csv) {
  const Json& labels = engine::Path(deployment, {"metadata", "labels"});
  auto is = [&](std::string_view key, const Json& want) {
    const Json& v = engine::Path(labels, {key});
    return v.is_string() && v == want;
  };
  return is("olm.owner", engine::Json(engine::GetString(csv, {"metadata", "name"}))) &&
         is("olm.owner.namespace", engine::Json(engine::GetString(csv, {"metadata", "namespace"}))) &&
         is("olm.owner.kind", engine::Json(kCsvKind));
}

std::optional<std::string> DeploymentNotReady(const Json& deployment, bool* unrecoverable) {
  if (unrecoverable != nullptr) *unrecoverable = false;
  const std::string name = GoQuote(engine::GetString(deployment, {"metadata", "name"}));
  if (Int(deployment, {"metadata", "generation"}) > Int(deployment, {"status", "observedGeneration"}))
    return StrCat("waiting for spec update of deployment ", name, " to be observed...");
  // Any Progressing condition with this reason, whatever its status.
  const Json* progressing = Condition(deployment, "Progressing");
  if (progressing != nullptr && engine::GetString(*progressing, {"reason"}) == "ProgressDeadlineExceeded") {
    if (unrecoverable != nullptr) *unrecoverable = true;
    return StrCat("deployment ", name, " exceeded its progress deadline");
  }
  const int64_t replicas = Int(deployment, {"status", "replicas"});
  const int64_t updated = Int(deployment, {"status", "updatedReplicas"});
  if (replicas > updated)
    return StrCat("deployment ", name, " waiting for ", replicas - updated,
                  " outdated replica(s) to be terminated");
  const Json* available = Condition(deployment, "Available");
  if (available == nullptr || engine::GetString(*available, {"status"}) != "True")
    return StrCat("deployment ", name, " not available: ",
                  available != nullptr ? engine::GetString(*available, {"message"})
                                       : "missing condition \"Available\"");
  return std::nullopt;
}

namespace {

// Whether `have` holds every field of `want` (objects: each key of want;
// lists: the same length, element by element); fields only `have` has are
// the server's defaults.
bool Holds(const Json& want, const Json& have) {
  if (want.is_object()) {
    if (!have.is_object()) return false;
    for (auto it = want.begin(); it != want.end(); ++it) {
      auto found = have.find(it.key());
      if (found == have.end() ? !it.value().is_null() : !Holds(it.value(), *found)) return false;
    }
    return true;
  }
  if (want.is_array()) {
    if (!have.is_array() || have.size() != want.size()) return false;
    for (size_t i = 0; i < want.size(); ++i)
      if (!Holds(want[i], have[i])) return false;
    return true;
  }
  return want == have;
}

}  // namespace

std::optional<DeploymentDrift> CheckCsvDeployment(const Json& csv, const Json& entry,
                                                  const DeploymentOverrides& overrides, const Json& live) {
  using C = DeploymentDriftClass;
  // Upstream lists the CSV's Deployments by the owner-label selector, then
  // looks the entry's name up among them.
  const std::string name = engine::GetString(entry, {"name"});
  if (!live.is_object() || engine::GetString(live, {"metadata", "name"}) != name ||
      !HasCsvOwnerLabels(live, csv))
    return DeploymentDrift{C::kComponentMissing, StrCat("missing deployment with name=", name)};
  bool unrecoverable = false;
  if (std::optional<std::string> why = DeploymentNotReady(live, &unrecoverable)) {
    if (unrecoverable)
      return DeploymentDrift{C::kUnrecoverable,
                             StrCat("deployment ", name, " not ready before timeout: ", *why)};
    return DeploymentDrift{C::kWaiting, StrCat("waiting for deployment ", name, " to become ready: ", *why)};
  }
  if (std::optional<std::string> why = AnnotationsMissing(csv, live))
    return DeploymentDrift{C::kAnnotationsMissing, *why};
  const Json& labels = engine::Path(live, {"metadata", "labels"});
  if (!labels.is_object() || !labels.contains(std::string(kDeploymentSpecHashLabel)))
    return DeploymentDrift{C::kDeploymentUpdated,
                           StrCat("deployment ", name, " doesn't have a spec hash, update it")};
  const std::string old_hash = Text(labels[std::string(kDeploymentSpecHashLabel)]);
  const Json want = CsvDeployment(csv, entry, overrides);
  const std::string new_hash = engine::GetString(want, {"metadata", "labels", kDeploymentSpecHashLabel});
  // Another writer's hash (upstream's is over Go's dump of the spec, §0.3)
  // never equals ours: its Deployment is unchanged when it holds the spec
  // we would write (the server's defaults aside).
  if (old_hash != new_hash && !Holds(engine::Path(want, {"spec"}), engine::Path(live, {"spec"})))
    return DeploymentDrift{C::kDeploymentUpdated,
                           StrCat("deployment changed old hash=", old_hash, ", new hash=", new_hash)};
  return std::nullopt;
}

Json CanonicalJson(const Json& j) {
  if (j.is_array()) {
    Json out = Json::array();
    for (const Json& v : j) out.push_back(CanonicalJson(v));
    return out;
  }
  if (!j.is_object()) return j;
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!it.value().is_null()) keys.push_back(it.key());
  std::sort(keys.begin(), keys.end());
  Json out = Json::object();
  for (const std::string& k : keys) out[k] = CanonicalJson(j[k]);
  return out;
}

bool CanonicalEqual(const Json& a, const Json& b) {
  if (a.is_array() || b.is_array()) {
    if (!a.is_array() || !b.is_array() || a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!CanonicalEqual(a[i], b[i])) return false;
    return true;
  }
  if (!a.is_object() || !b.is_object()) return a == b;
  size_t members = 0;
  for (auto it = a.begin(); it != a.end(); ++it) {
    if (it.value().is_null()) continue;
    ++members;
    auto other = b.find(it.key());
    if (other == b.end() || other->is_null() || !CanonicalEqual(it.value(), *other)) return false;
  }
  for (auto it = b.begin(); it != b.end(); ++it) members -= it.value().is_null() ? 0 : 1;
  return members == 0;
}

}  // namespace recon::olm
