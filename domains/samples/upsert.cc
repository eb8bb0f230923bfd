// Inventory → cluster: imagestream and template upserts (reference §6.11,
// §10), skips, the version annotation, and the ist→image ConfigMap (§13).
#include "base/strings.h"
#include "domains/samples/conditions.h"
#include "domains/samples/names.h"
#include "domains/samples/reducer.h"
#include "domains/samples/registry.h"

namespace recon::samples {
namespace {

// The object to update: the cluster copy without status (a subresource).
Json ForUpdate(const engine::Object& o) {
  Json j = o.json();
  if (j.is_object()) j.erase("status");
  return j;
}

void SetMeta(Json& obj, std::string_view field, std::string_view key, std::string_view value) {
  Json& meta = obj["metadata"];
  if (!meta.is_object()) meta = Json::object();
  Json& m = meta[std::string(field)];
  if (!m.is_object()) m = Json::object();
  m[std::string(key)] = value;
}

// The file object placed in the samples namespace.
Json InNamespace(const Json& file) {
  Json out = file;
  Json meta = Json::object();
  meta["name"] = engine::GetString(file, {"metadata", "name"});
  meta["namespace"] = kSamplesNs;
  const Json& old = engine::Path(file, {"metadata"});
  if (old.is_object()) {
    for (auto it = old.begin(); it != old.end(); ++it) {
      if (it.key() != "name" && it.key() != "namespace") meta[it.key()] = it.value();
    }
  }
  out["metadata"] = std::move(meta);
  return out;
}

bool SameContent(const Json& want, const Json& have) {
  for (std::string_view f : {"labels", "annotations"}) {
    if (engine::Path(want, {"metadata", f}) != engine::Path(have, {"metadata", f})) return false;
  }
  for (auto it = want.begin(); it != want.end(); ++it) {
    if (it.key() == "metadata" || it.key() == "status" || it.key() == "apiVersion" || it.key() == "kind")
      continue;
    if (engine::Path(have, {it.key()}) != it.value()) return false;
  }
  return true;
}

}  // namespace

void SamplesReducer::MaintainIstToImage(Ctx& c, const Inventory* inv) {
  Json data = Json::object();
  if (inv) {
    for (const auto& [k, v] : inv->ist_to_image) data[k] = v;
  }
  const engine::Object* cm = c.world.Get("", "ConfigMap", kOperatorNs, kIstToImageCm);
  if (cm == nullptr) {
    Json o = Json::object();
    o["apiVersion"] = "v1";
    o["kind"] = "ConfigMap";
    o["metadata"] = Json{{"name", kIstToImageCm},
                         {"namespace", kOperatorNs},
                         {"annotations", Json{{kVersionAnnotation, c.version}}}};
    o["data"] = std::move(data);
    Write(c, "create", o);
    return;
  }
  // Refreshed only when its version annotation differs from V (upstream).
  if (engine::GetString(cm->json(), {"metadata", "annotations", kVersionAnnotation}) == c.version) return;
  Json o = ForUpdate(*cm);
  SetMeta(o, "annotations", kVersionAnnotation, c.version);
  o["data"] = std::move(data);
  Write(c, "update", o);
}

void SamplesReducer::EnsurePendingConfigMap(Ctx& c, std::string_view name) {
  if (c.world.Get("", "ConfigMap", kOperatorNs, name) != nullptr) return;
  Json o = Json::object();
  o["apiVersion"] = "v1";
  o["kind"] = "ConfigMap";
  o["metadata"] = Json{{"name", name}, {"namespace", kOperatorNs}};
  Write(c, "create", o);
}

Json SamplesReducer::DesiredStream(const Ctx& c, const Cfg& cfg, const Json& file,
                                   const engine::Object* cluster) const {
  Json want = InNamespace(file);
  ApplyRegistryOverride(want, engine::GetString(cfg.spec, {"samplesRegistry"}));
  SetMeta(want, "labels", kManagedLabel, "true");
  SetMeta(want, "annotations", kVersionAnnotation, c.version);
  if (cluster == nullptr) return want;
  // Tags only the cluster has (admin-added, end-of-life) survive, after the
  // registry rewrite so they keep their own registry.
  const Json& have_tags = engine::Path(cluster->json(), {"spec", "tags"});
  if (have_tags.is_array()) {
    Json& tags = want["spec"]["tags"];
    if (!tags.is_array()) tags = Json::array();
    std::set<std::string> names;
    for (const Json& t : tags) names.insert(engine::GetString(t, {"name"}));
    for (const Json& t : have_tags) {
      if (!names.contains(engine::GetString(t, {"name"}))) tags.push_back(t);
    }
  }
  return want;
}

bool SamplesReducer::StaleOwnWrite(const Ctx& c, const Cfg& cfg, const Json& file,
                                   const engine::Object& is) const {
  if (is.Label(kManagedLabel) == "false") return true;
  const std::string registry = engine::GetString(cfg.spec, {"samplesRegistry"});
  for (const auto& other : st_.applied_registries) {
    if (other == registry) continue;
    Cfg then;
    then.spec = cfg.spec;
    then.spec["samplesRegistry"] = other;
    if (SameContent(DesiredStream(c, then, file, &is), is.json())) return true;
  }
  return false;
}

void SamplesReducer::UpsertStream(Ctx& c, const Cfg& cfg, const Json& file, const engine::Object* cluster,
                                  bool deleted) {
  std::string name = engine::GetString(file, {"metadata", "name"});
  // Every upsert first clears the stream's import tracking ConfigMap.
  if (const engine::Object* cm = c.world.Get("", "ConfigMap", kOperatorNs, name)) {
    const Json& data = engine::Path(cm->json(), {"data"});
    const Json& labels = engine::Path(cm->json(), {"metadata", "labels"});
    if ((data.is_object() && !data.empty()) || (labels.is_object() && !labels.empty())) {
      Json o = ForUpdate(*cm);
      o["metadata"].erase("labels");
      o["data"] = Json::object();
      Write(c, "update", o);
    }
  }
  if (cfg.skipped_streams.contains(name)) {
    if (cluster && !deleted && cluster->Label(kManagedLabel) != "false") {
      Json o = ForUpdate(*cluster);
      SetMeta(o, "labels", kManagedLabel, "false");
      Write(c, "update", o);
    }
    return;
  }
  // Every registry a stream is written for, so that a write for one no
  // longer wanted is recognised when it lands late (StaleOwnWrite).
  st_.applied_registries.insert(engine::GetString(cfg.spec, {"samplesRegistry"}));
  if (cluster == nullptr || deleted) {
    Write(c, "create", DesiredStream(c, cfg, file, nullptr));
    return;
  }
  Json want = DesiredStream(c, cfg, file, cluster);
  if (SameContent(want, cluster->json())) return;  // a no-op replace is not sent
  std::string rv = engine::GetString(cluster->json(), {"metadata", "resourceVersion"});
  if (!rv.empty()) want["metadata"]["resourceVersion"] = rv;
  Write(c, "update", want);
}

void SamplesReducer::UpsertTemplate(Ctx& c, const Cfg& cfg, const Json& file, const engine::Object* cluster,
                                    bool deleted) {
  std::string name = engine::GetString(file, {"metadata", "name"});
  if (cfg.skipped_templates.contains(name)) {
    if (cluster && !deleted && cluster->Label(kManagedLabel) != "false") {
      Json o = ForUpdate(*cluster);
      SetMeta(o, "labels", kManagedLabel, "false");
      Write(c, "update", o);
    }
    return;
  }
  Json want = InNamespace(file);
  SetMeta(want, "labels", kManagedLabel, "true");
  SetMeta(want, "annotations", kVersionAnnotation, c.version);
  if (cluster == nullptr || deleted) {
    Write(c, "create", want);
    return;
  }
  // A full replace, no merge.
  if (SameContent(want, cluster->json())) return;
  std::string rv = engine::GetString(cluster->json(), {"metadata", "resourceVersion"});
  if (!rv.empty()) want["metadata"]["resourceVersion"] = rv;
  Write(c, "update", want);
}

void SamplesReducer::RelabelSkipped(Ctx& c, const Cfg& cfg) {
  auto relabel = [&](std::string_view group, std::string_view kind, const std::set<std::string>& names) {
    for (const auto& n : names) {
      const engine::Object* o = c.world.Get(group, kind, kSamplesNs, n);
      if (o == nullptr || o->Label(kManagedLabel) != "true") continue;
      Json u = ForUpdate(*o);
      SetMeta(u, "labels", kManagedLabel, "false");
      Write(c, "update", u);
    }
  };
  relabel(kImageGroup, "ImageStream", cfg.skipped_streams);
  relabel(kTemplateGroup, "Template", cfg.skipped_templates);
}

void SamplesReducer::CreateMissing(Ctx& c, Cfg& cfg, const Inventory& inv) {
  for (const auto& [name, file] : inv.streams) {
    if (cfg.skipped_streams.contains(name) || c.world.Get(kImageGroup, "ImageStream", kSamplesNs, name))
      continue;
    UpsertStream(c, cfg, file, nullptr, false);
  }
  for (const auto& [name, file] : inv.templates) {
    if (cfg.skipped_templates.contains(name) || c.world.Get(kTemplateGroup, "Template", kSamplesNs, name))
      continue;
    UpsertTemplate(c, cfg, file, nullptr, false);
  }
}

bool SamplesReducer::FullUpsert(Ctx& c, Cfg& cfg, const std::set<std::string>& unskipped_streams,
                                const std::set<std::string>& unskipped_templates, bool registry_changed) {
  auto inv = GetInventory(c.world);
  if (!inv.ok()) {
    if (ErrorConditionUpdate(cfg.status, kSamplesExist, "Unknown", ErrorReason(kSamplesExist, "Unknown"),
                             recon::StrCat("error reading in content : ", Sv(inv.status().message())),
                             c.now)) {
      WriteConfigStatus(c, cfg);
    }
    return false;
  }
  MaintainIstToImage(c, *inv);
  std::vector<std::string> streams;
  // Deviation: a stream already as the inventory wants it is not written (a
  // no-op replace), so no watch event would ever clear a pending ConfigMap
  // made for it; its import status is processed now instead, as upstream's
  // next resync would.
  std::vector<const engine::Object*> current;
  for (const auto& [name, file] : (*inv)->streams) {
    if (cfg.skipped_streams.contains(name)) continue;
    if (!unskipped_streams.empty() && !unskipped_streams.contains(name)) continue;
    const engine::Object* is = c.world.Get(kImageGroup, "ImageStream", kSamplesNs, name);
    if (is && SameContent(DesiredStream(c, cfg, file, is), is->json())) {
      current.push_back(is);
      continue;
    }
    streams.push_back(name);
  }
  // Pending tracking first, then the upserts (sorted, not Go map order).
  for (const auto& name : streams) EnsurePendingConfigMap(c, name);
  for (const auto& name : streams) {
    UpsertStream(c, cfg, (*inv)->streams.at(name), c.world.Get(kImageGroup, "ImageStream", kSamplesNs, name),
                 false);
  }
  for (const engine::Object* is : current) ProcessImportStatus(c, cfg, *is);
  const bool steady = ConditionTrue(cfg.status, kSamplesExist) &&
                      !ConditionTrue(cfg.status, kImageChangesInProgress) &&
                      engine::GetString(cfg.status, {"version"}) == c.version;
  if (!(unskipped_templates.empty() && registry_changed && steady)) {
    for (const auto& [name, file] : (*inv)->templates) {
      if (!unskipped_templates.empty() && !unskipped_templates.contains(name)) continue;
      UpsertTemplate(c, cfg, file, c.world.Get(kTemplateGroup, "Template", kSamplesNs, name), false);
    }
  }
  cfg.status["version"] = c.version;
  GoodConditionUpdate(cfg.status, kSamplesExist, "True", c.now);
  GoodConditionUpdate(cfg.status, kImageChangesInProgress, "False", c.now);
  // "Init conditions": every type exists; two are forced True.
  for (std::string_view t :
       {kSamplesExist, kImportCredentialsExist, kConfigurationValid, kImageChangesInProgress, kRemovePending,
        kMigrationInProgress, kImportImageErrorsExist}) {
    Condition(cfg.status, t, c.now);
  }
  GoodConditionUpdate(cfg.status, kImportCredentialsExist, "True", c.now);
  if (GoodConditionUpdate(cfg.status, kConfigurationValid, "True", c.now)) st_.invalidconfig_metric = 0;
  CopySpecToStatus(cfg.spec, cfg.status);
  WriteConfigStatus(c, cfg);
  return true;
}

}  // namespace recon::samples
