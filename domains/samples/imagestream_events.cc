// Watch events on samples: imagestreams and templates in `openshift`
// (reference §7, §8: recreate deleted ones, revert ones whose version
// annotation is not V) and ConfigMaps in the operator namespace (§9:
// ImportImageErrorsExist); a failed write to one of those objects runs its
// work item again (§18: an error requeues it).
#include "base/strings.h"
#include "domains/samples/conditions.h"
#include "domains/samples/names.h"
#include "domains/samples/reducer.h"
#include "engine/initial_lists.h"

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
  const bool deleted = c.ev.type == records::EventType::kDeleted;
  // The first delete of an object our own cleanup deleted is not a revert
  // while the samples are meant to be gone. Once they are wanted again it
  // is (recon): a cleanup delete that landed after a Removed→Managed flip
  // would otherwise leave the stream missing for good.
  const bool cleanup_delete = deleted && st_.mass_deleted.erase(recon::StrCat("ImageStream/", name)) > 0;
  auto read = ReadConfig(c.world);
  if (!read) return;
  Cfg& cfg = *read;
  if (!engine::GetString(cfg.obj->json(), {"metadata", "deletionTimestamp"}).empty()) return;
  if (cfg.mgmt == kRemoved || cfg.mgmt == kUnmanaged) {
    if (cleanup_delete) return;
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
  // Deviation (recon): the revert rule lets edits that keep the version
  // annotation survive, but not our own writes made for an earlier spec (a
  // skip's relabel, another registry override) that landed after the spec
  // moved on: the Config reconcile decided from a world that did not show
  // them yet, and no full upsert would come to undo them.
  if (is && Annotation(*is, kVersionAnnotation) == c.version && StaleOwnWrite(c, cfg, file->second, *is)) {
    UpsertStream(c, cfg, file->second, is, false);
    EnsurePendingConfigMap(c, name);
    return;
  }
  if (is && (ShouldSetVersion(c, cfg, **inv) || Annotation(*is, kVersionAnnotation) == c.version)) {
    ProcessImportStatus(c, cfg, *is);
    // The catch-up write waits while our own Config write is unobserved.
    const bool config_write_pending = PendingConfigWrite(c) != nullptr;
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
  const bool deleted = c.ev.type == records::EventType::kDeleted;
  // As for imagestreams: our cleanup's delete is not reverted unless the
  // samples are wanted again (Removed/Unmanaged return below).
  if (deleted) st_.mass_deleted.erase(recon::StrCat("Template/", name));
  const engine::Object* t = deleted ? nullptr : c.world.Get(kTemplateGroup, "Template", kSamplesNs, name);
  // recon: one relabeled managed=false by a skip the spec no longer has
  // (the relabel landed after the unskip) is not left so.
  const bool relabeled = t && t->Label(kManagedLabel) == "false";
  if (t && Annotation(*t, kVersionAnnotation) == c.version && !relabeled) return;  // shortcut: no Config read
  auto read = ReadConfig(c.world);
  if (!read) return;
  Cfg& cfg = *read;
  if (!engine::GetString(cfg.obj->json(), {"metadata", "deletionTimestamp"}).empty()) return;
  if (cfg.mgmt == kRemoved || cfg.mgmt == kUnmanaged || ArchUnknown(cfg.spec)) return;
  auto inv = GetInventory(c.world);
  if (!inv.ok()) return;
  auto file = (*inv)->templates.find(name);
  if (file == (*inv)->templates.end() || cfg.skipped_templates.contains(name)) return;
  if (t && ShouldSetVersion(c, cfg, **inv) && !relabeled) return;
  UpsertTemplate(c, cfg, file->second, t, deleted);
}

void SamplesReducer::OnOperatorConfigMap(Ctx& c) {
  auto read = ReadConfig(c.world);
  if (!read) return;
  Cfg& cfg = *read;
  // Build on our own Config write when it is not observed yet.
  if (const engine::EmittedWrite* w = PendingConfigWrite(c)) {
    auto body = engine::ParseJson(w->body);
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
  if (c.ev.type != records::EventType::kDeleted) SettleTracking(c, cfg, c.ev.name);
}

void SamplesReducer::SettleTracking(Ctx& c, const Cfg& cfg, std::string_view cm_name) {
  // recon: a stream's tracking ConfigMap that outlives the stream's last
  // watch event (its create was slow or retried, or the stream's events came
  // while Removed) would stay until upstream's 10-minute resync re-delivers
  // the stream; the stream's import status is processed now instead. Not
  // while an upsert of the stream is under way: its own watch event does it.
  if (!engine::GetString(cfg.obj->json(), {"metadata", "deletionTimestamp"}).empty()) return;
  if (!(cfg.mgmt == kManaged || cfg.mgmt == kForce || cfg.mgmt.empty()) || ArchUnknown(cfg.spec)) return;
  const std::string name(cm_name);
  auto inv = GetInventory(c.world);
  if (!inv.ok() || !(*inv)->streams.contains(name)) return;
  const engine::Object* is = c.world.Get(kImageGroup, "ImageStream", kSamplesNs, name);
  if (is == nullptr || Annotation(*is, kVersionAnnotation) != c.version) return;
  if (PendingWrite(c, kImageGroup, "ImageStream", kSamplesNs, name) != nullptr) return;
  ProcessImportStatus(c, cfg, *is);
}

// recon: the stream's echo can come before both its upsert's answer and
// its tracking ConfigMap's event; SettleTracking then left the ConfigMap to
// the stream's own event, which had already come (a fault-free soak, seed
// 17: dotnet-runtime's ConfigMap kept for good). The answer, once the echo
// is seen, is when the ConfigMap is settled.
void SamplesReducer::SettleTrackingAtAnswer(Ctx& c) {
  const engine::TrackedWrite* a = c.world.writes().answered();
  if (a == nullptr || !c.ev.ok || a->domain != kDomain || a->kind != "ImageStream" || a->ns != kSamplesNs)
    return;
  if (c.world.Get("", "ConfigMap", kOperatorNs, a->name) == nullptr) return;
  auto read = ReadConfig(c.world);
  if (!read) return;
  SettleTracking(c, *read, a->name);
}

void SamplesReducer::RetryWrite(Ctx& c, const engine::TrackedWrite& failed) {
  auto obj = engine::ParseJson(failed.body);
  if (!obj.ok()) return;
  const std::string kind = engine::GetString(*obj, {"kind"});
  const std::string ns = engine::GetString(*obj, {"metadata", "namespace"});
  const std::string name = engine::GetString(*obj, {"metadata", "name"});
  // Config and ClusterOperator writes: the Config reconcile decides again.
  auto read = ReadConfig(c.world);
  if (!read) return;
  Cfg& cfg = *read;
  const bool deleting = !engine::GetString(cfg.obj->json(), {"metadata", "deletionTimestamp"}).empty();
  // Cleanup's deletes stand while the samples are to be gone; anything
  // else decided before a flip to Removed is dropped.
  const bool removing = deleting || cfg.mgmt == kRemoved;
  const bool wanted =
      !deleting && (cfg.mgmt == kManaged || cfg.mgmt == kForce || cfg.mgmt.empty()) && !ArchUnknown(cfg.spec);
  auto inv = GetInventory(c.world);
  if (!inv.ok()) return;
  if (kind == "ImageStream" || kind == "Template") {
    if (ns != kSamplesNs) return;
    const bool stream = kind == "ImageStream";
    const engine::Object* cur = c.world.Get(stream ? kImageGroup : kTemplateGroup, kind, kSamplesNs, name);
    if (removing) {
      if (failed.verb == "delete" && cur && cur->Label(kManagedLabel) == "true") Write(c, "delete", *obj);
      return;
    }
    if (!wanted) return;
    if (stream) {
      auto file = (*inv)->streams.find(name);
      if (file == (*inv)->streams.end()) return;
      UpsertStream(c, cfg, file->second, cur, false);
      if (cur == nullptr && !cfg.skipped_streams.contains(name)) EnsurePendingConfigMap(c, name);
    } else {
      auto file = (*inv)->templates.find(name);
      if (file != (*inv)->templates.end()) UpsertTemplate(c, cfg, file->second, cur, false);
    }
    return;
  }
  if (kind != "ConfigMap" || ns != kOperatorNs) return;
  if (name == kIstToImageCm) {
    if (wanted) MaintainIstToImage(c, *inv);
    return;
  }
  if (removing) {
    if (failed.verb == "delete") DeleteConfigMapIfPresent(c, name);
    return;
  }
  if (!wanted) return;
  // Per-imagestream tracking: what the stream's import status says now.
  if (!(*inv)->streams.contains(name) || cfg.skipped_streams.contains(name)) {
    DeleteConfigMapIfPresent(c, name);
    return;
  }
  if (const engine::Object* is = c.world.Get(kImageGroup, "ImageStream", kSamplesNs, name)) {
    ProcessImportStatus(c, cfg, *is);
  } else if (failed.verb == "create") {
    EnsurePendingConfigMap(c, name);  // the stream's create is still to come
  }
}

void SamplesReducer::ForgetCleanupDelete(const Event& ev) {
  if (ev.type != records::EventType::kDeleted || ev.ns != kSamplesNs) return;
  if ((ev.group == kImageGroup && ev.kind == "ImageStream") ||
      (ev.group == kTemplateGroup && ev.kind == "Template"))
    st_.mass_deleted.erase(recon::StrCat(ev.kind, "/", ev.name));
}

void SamplesReducer::ReconcileListed(Ctx& c) {
  // Each handler sees the object as the world holds it, as an event of the
  // Cluster event's seq and time would carry it.
  auto as_event = [&c](const engine::Object& o) {
    return engine::ListedObjectEvent(c.ev, o.key(), &o, records::EventType::kModified);
  };
  auto each = [&](std::string_view group, std::string_view kind, std::string_view ns, auto handler) {
    for (const engine::Object* o : c.world.ListIn(group, kind, ns)) {
      Event e = as_event(*o);
      Ctx one{e, c.world, c.emit, c.now, c.version, {}};
      (this->*handler)(one);
    }
  };
  each(kImageGroup, "ImageStream", kSamplesNs, &SamplesReducer::OnImageStream);
  each(kTemplateGroup, "Template", kSamplesNs, &SamplesReducer::OnTemplate);
  // The tracking ConfigMaps are taken together (the handler lists them all).
  for (const engine::Object* cm : c.world.ListIn("", "ConfigMap", kOperatorNs)) {
    if (cm->name() == kIstToImageCm) continue;
    Event e = as_event(*cm);
    Ctx one{e, c.world, c.emit, c.now, c.version, {}};
    OnOperatorConfigMap(one);
    break;
  }
}

}  // namespace recon::samples
