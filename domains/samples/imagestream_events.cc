// Watch events on samples: imagestreams and templates in `openshift`
// (reference §7, §8: recreate deleted ones, revert ones whose version
// annotation is not V) and ConfigMaps in the operator namespace (§9:
// ImportImageErrorsExist).
#include "base/strings.h"
#include "domains/samples/conditions.h"
#include "domains/samples/names.h"
#include "domains/samples/reducer.h"

namespace recon::samples {
namespace {

bool KnownArch(std::string_view a) {
  return a == "x86_64" || a == "amd64" || a == "arm64" || a == "ppc64le" || a == "s390x";
}

bool ArchUnknown(const Json& spec) {
  const Json& archs = engine::Path(spec, {"architectures"});
  return archs.is_array() && !archs.empty() &&
         (!archs[0].is_string() || !KnownArch(archs[0].get<std::string>()));
}

std::string Annotation(const engine::Object& o, std::string_view key) {
  return engine::GetString(o.json(), {"metadata", "annotations", key});
}

}  // namespace

bool SamplesReducer::ShouldSetVersion(const Ctx& c, const Cfg& cfg, const Inventory& inv) const {
  if (!ConditionTrue(cfg.status, kSamplesExist) || ConditionTrue(cfg.status, kImageChangesInProgress))
    return false;
  if (engine::GetString(cfg.status, {"version"}) == c.version) return false;
  for (const auto& [name, file] : inv.streams) {
    if (cfg.skipped_streams.contains(name)) continue;
    const engine::Object* is = c.world.Get(kImageGroup, "ImageStream", kSamplesNs, name);
    if (is == nullptr || Annotation(*is, kVersionAnnotation) != c.version) return false;
  }
  return true;  // templates are not checked (upstream)
}

void SamplesReducer::OnImageStream(Ctx& c) {
  const std::string name(c.ev.name);
  const bool deleted = c.ev.type == engine::EventType::kDeleted;
  // The first delete of an object our own cleanup deleted is not a revert.
  if (deleted && st_.mass_deleted.erase(recon::StrCat("ImageStream/", name))) return;
  auto read = ReadConfig(c.world);
  if (!read) return;
  Cfg& cfg = *read;
  if (!engine::GetString(cfg.obj->json(), {"metadata", "deletionTimestamp"}).empty()) return;
  if (cfg.mgmt == kRemoved || cfg.mgmt == kUnmanaged) {
    // recon: a removal waiting on imports re-checks when an import moves.
    if (st_.removal && st_.removal->waiting_since_seq != 0 && st_.removal->completed_seq == 0)
      ReconcileConfig(c);
    return;
  }
  if (ArchUnknown(cfg.spec)) return;
  auto inv = GetInventory(c.world);
  if (!inv.ok()) return;
  auto file = (*inv)->streams.find(name);
  if (file == (*inv)->streams.end()) {
    DeleteConfigMapIfPresent(c, name);  // stale tracking of a stream we do not own
    return;
  }
  const engine::Object* is = deleted ? nullptr : c.world.Get(kImageGroup, "ImageStream", kSamplesNs, name);
  if (cfg.skipped_streams.contains(name)) {
    if (is) {
      ProcessImportStatus(c, cfg, *is);
    } else {
      DeleteConfigMapIfPresent(c, name);
    }
    return;
  }
  if (is && (ShouldSetVersion(c, cfg, **inv) || Annotation(*is, kVersionAnnotation) == c.version)) {
    ProcessImportStatus(c, cfg, *is);
    // The catch-up write waits while our own Config write is unobserved.
    auto inflight = st_.inflight.find(recon::StrCat(kSamplesGroup, "/Config//", kConfigName));
    const bool config_write_pending =
        inflight != st_.inflight.end() && inflight->second.seq >= cfg.obj->seq();
    if (!config_write_pending && ShouldSetVersion(c, cfg, **inv)) {
      cfg.status["version"] = c.version;
      WriteConfigStatus(c, cfg);
    }
    return;
  }
  // Deleted, or its version annotation is missing or not V: revert it.
  UpsertStream(c, cfg, file->second, is, deleted);
  EnsurePendingConfigMap(c, name);
}

void SamplesReducer::OnTemplate(Ctx& c) {
  const std::string name(c.ev.name);
  const bool deleted = c.ev.type == engine::EventType::kDeleted;
  if (deleted && st_.mass_deleted.erase(recon::StrCat("Template/", name))) return;
  const engine::Object* t = deleted ? nullptr : c.world.Get(kTemplateGroup, "Template", kSamplesNs, name);
  if (t && Annotation(*t, kVersionAnnotation) == c.version) return;  // shortcut: no Config read
  auto read = ReadConfig(c.world);
  if (!read) return;
  Cfg& cfg = *read;
  if (!engine::GetString(cfg.obj->json(), {"metadata", "deletionTimestamp"}).empty()) return;
  if (cfg.mgmt == kRemoved || cfg.mgmt == kUnmanaged || ArchUnknown(cfg.spec)) return;
  auto inv = GetInventory(c.world);
  if (!inv.ok()) return;
  auto file = (*inv)->templates.find(name);
  if (file == (*inv)->templates.end() || cfg.skipped_templates.contains(name)) return;
  if (t && ShouldSetVersion(c, cfg, **inv)) return;
  UpsertTemplate(c, cfg, file->second, t, deleted);
}

void SamplesReducer::OnOperatorConfigMap(Ctx& c) {
  auto read = ReadConfig(c.world);
  if (!read) return;
  Cfg& cfg = *read;
  // Build on our own Config write when it is not observed yet.
  auto inflight = st_.inflight.find(recon::StrCat(kSamplesGroup, "/Config//", kConfigName));
  if (inflight != st_.inflight.end() && inflight->second.seq >= cfg.obj->seq()) {
    auto body = engine::ParseJson(inflight->second.body);
    if (body.ok() && engine::Path(*body, {"status"}).is_object())
      cfg.status = engine::Path(*body, {"status"});
  }
  bool any = false, any_errors = false;
  for (const engine::Object* cm : c.world.ListIn("", "ConfigMap", kOperatorNs)) {
    if (cm->name() == kIstToImageCm) continue;
    any = true;
    any_errors |= cm->Label(kImportErrorLabel) == "true";
  }
  bool changed = false;
  if (!any) {
    if (ConditionTrue(cfg.status, kImageChangesInProgress) && ConditionTrue(cfg.status, kSamplesExist)) {
      changed |= GoodConditionUpdate(cfg.status, kImageChangesInProgress, "False", c.now);
    }
    if (ConditionTrue(cfg.status, kImportImageErrorsExist)) {
      changed |= GoodConditionUpdate(cfg.status, kImportImageErrorsExist, "False", c.now);
    }
  } else if (any_errors) {
    if (ConditionTrue(cfg.status, kImageChangesInProgress)) {
      changed |= GoodConditionUpdate(cfg.status, kImageChangesInProgress, "False", c.now);
    }
    // Only False→True: a condition that was never created stays absent.
    if (ConditionFalse(cfg.status, kImportImageErrorsExist)) {
      GoodConditionUpdate(cfg.status, kImportImageErrorsExist, "True", c.now);
      // Upstream loses this message (addendum); recon keeps it.
      Condition(cfg.status, kImportImageErrorsExist, c.now)["message"] = kImportErrorsMessage;
      changed = true;
    }
  } else if (ConditionTrue(cfg.status, kImportImageErrorsExist)) {
    changed |= GoodConditionUpdate(cfg.status, kImportImageErrorsExist, "False", c.now);
  }
  if (changed) WriteConfigStatus(c, cfg);
}

}  // namespace recon::samples
