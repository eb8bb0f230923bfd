// Removed (reference §6.4), namespace cleanup (§14.1), Config deletion with
// the finalizer (§14.2), and recon's `removalImportWait` (§14.3: whether
// removal waits for imagestream imports still in progress).
#include "absl/strings/str_join.h"
#include "base/strings.h"
#include "domains/samples/conditions.h"
#include "domains/samples/names.h"
#include "domains/samples/reducer.h"

namespace recon::samples {
namespace {

Json Ref(std::string_view api_version, std::string_view kind, std::string_view ns, std::string_view name) {
  Json o = Json::object();
  o["apiVersion"] = api_version;
  o["kind"] = kind;
  o["metadata"] = Json{{"name", name}, {"namespace", ns}};
  return o;
}

bool HasFinalizer(const Json& cfg) {
  const Json& f = engine::Path(cfg, {"metadata", "finalizers"});
  if (!f.is_array()) return false;
  for (const Json& x : f)
    if (x.is_string() && x.get<std::string>() == kFinalizer) return true;
  return false;
}

// A DockerImage tag is still importing when its status shows neither an
// image nor a failure.
bool TagImporting(const Json& is, const std::string& tag) {
  const Json& tags = engine::Path(is, {"status", "tags"});
  if (!tags.is_array()) return true;
  for (const Json& t : tags) {
    if (engine::GetString(t, {"tag"}) != tag) continue;
    const Json& items = engine::Path(t, {"items"});
    if (items.is_array() && !items.empty()) return false;
    const Json& conds = engine::Path(t, {"conditions"});
    if (conds.is_array()) {
      for (const Json& c : conds)
        if (engine::GetString(c, {"status"}) == "False") return false;
    }
    return true;
  }
  return true;
}

}  // namespace

std::vector<std::string> SamplesReducer::InProgressImports(const Ctx& c, const Cfg& cfg) const {
  std::vector<std::string> out;
  for (const engine::Object* is : c.world.ListIn(kImageGroup, "ImageStream", kSamplesNs)) {
    if (is->Label(kManagedLabel) != "true" || cfg.skipped_streams.contains(std::string(is->name()))) continue;
    const Json& tags = engine::Path(is->json(), {"spec", "tags"});
    if (!tags.is_array()) continue;
    for (const Json& t : tags) {
      if (engine::GetString(t, {"from", "kind"}) != "DockerImage") continue;
      if (TagImporting(is->json(), engine::GetString(t, {"name"}))) {
        out.emplace_back(is->name());
        break;
      }
    }
  }
  return out;  // sorted: the world lists in name order
}

bool SamplesReducer::ProcessRemoved(Ctx& c, Cfg& cfg) {
  const std::string status_mgmt = engine::GetString(cfg.status, {"managementState"});
  if (!st_.removal) {
    st_.removal = RemovalRecord{};
    st_.removal->requested_seq = c.ev.seq;
    st_.removal->requested_ns = c.now;
  }
  RemovalRecord& r = *st_.removal;
  // Stage 1: announce.
  if (status_mgmt != kRemoved && !ConditionTrue(cfg.status, kRemovePending)) {
    GoodConditionUpdate(cfg.status, kRemovePending, "True", c.now);
    return true;
  }
  // Stage 3: done.
  if (ConditionTrue(cfg.status, kRemovePending) && status_mgmt == kRemoved) {
    GoodConditionUpdate(cfg.status, kRemovePending, "False", c.now);
    return true;
  }
  // Stage 2: cleanup.
  if (status_mgmt != kRemoved || ConditionTrue(cfg.status, kSamplesExist)) {
    if (removal_wait_ns_ != 0 && r.gave_up_seq == 0) {
      std::vector<std::string> busy = InProgressImports(c, cfg);
      if (!busy.empty()) {
        if (r.waiting_since_seq == 0) {
          r.waiting_since_seq = c.ev.seq;
          r.waiting_since_ns = c.now;
          r.deadline_ns = removal_wait_ns_ == kWaitForever ? 0 : c.now + removal_wait_ns_;
          r.waited_on = busy;
        }
        r.waiting_on = busy;
        if (removal_wait_ns_ == kWaitForever || c.now < r.deadline_ns) {
          if (removal_wait_ns_ != kWaitForever && !r.timer_set) {
            c.emit.SetTimer(kRemovalWaitTimer, r.deadline_ns);
            r.timer_set = true;
          }
          return SetConditionMessage(
              cfg.status, kRemovePending,
              recon::StrCat("Waiting for ", busy.size(),
                            " in-progress imagestream imports to finish before removing "
                            "samples (removalImportWait=",
                            removal_wait_text_, "): ", absl::StrJoin(busy, ", ")),
              c.now);
        }
        r.gave_up_seq = c.ev.seq;
        r.gave_up_ns = c.now;
        r.abandoned = busy;
      } else {
        r.waiting_on.clear();
      }
    }
    if (auto s = CleanupNamespace(c); !s.ok()) {
      ErrorConditionUpdate(
          cfg.status, kSamplesExist, "Unknown", ErrorReason(kSamplesExist, "Unknown"),
          recon::StrCat("The error ", Sv(s.message()),
                        " during openshift namespace cleanup has left the samples in an unknown state"),
          c.now);
      return true;
    }
    GoodConditionUpdate(cfg.status, kSamplesExist, "False", c.now);
    GoodConditionUpdate(cfg.status, kImageChangesInProgress, "False", c.now);
    GoodConditionUpdate(cfg.status, kImportImageErrorsExist, "False", c.now);
    if (r.abandoned.empty() && r.waiting_since_seq != 0) {
      SetConditionMessage(cfg.status, kRemovePending, "", c.now);  // the wait is over
    } else if (!r.abandoned.empty()) {
      SetConditionMessage(cfg.status, kRemovePending,
                          recon::StrCat("Removed after waiting ", removal_wait_text_,
                                        " for in-progress imagestream imports; abandoned: ",
                                        absl::StrJoin(r.abandoned, ", ")),
                          c.now);
    }
    cfg.status["managementState"] = kRemoved;
    cfg.status["version"] = c.version;
    cfg.status["architectures"] = Json::array();
    r.completed_seq = c.ev.seq;
    return true;
  }
  if (engine::GetString(cfg.status, {"version"}) != c.version) {
    cfg.status["version"] = c.version;
    return true;
  }
  return false;  // never waits here; never upserts
}

absl::Status SamplesReducer::CleanupNamespace(Ctx& c) {
  for (const engine::Object* is : c.world.ListIn(kImageGroup, "ImageStream", kSamplesNs)) {
    if (is->Label(kManagedLabel) != "true") continue;
    Write(c, "delete", Ref(kImageApiVersion, "ImageStream", kSamplesNs, is->name()));
    st_.mass_deleted.insert(recon::StrCat("ImageStream/", is->name()));
  }
  for (const engine::Object* t : c.world.ListIn(kTemplateGroup, "Template", kSamplesNs)) {
    if (t->Label(kManagedLabel) != "true") continue;
    Write(c, "delete", Ref(kTemplateApiVersion, "Template", kSamplesNs, t->name()));
    st_.mass_deleted.insert(recon::StrCat("Template/", t->name()));
  }
  // Deviation: only ConfigMaps we own (per-imagestream tracking), not every
  // ConfigMap in the namespace; the ist→image one is always kept.
  auto inv = GetInventory(c.world);
  for (const engine::Object* cm : c.world.ListIn("", "ConfigMap", kOperatorNs)) {
    if (cm->name() == kIstToImageCm) continue;
    const bool ours = cm->Label(kImportErrorLabel) == "true" ||
                      (inv.ok() && (*inv)->streams.contains(std::string(cm->name())));
    if (ours) Write(c, "delete", Ref("v1", "ConfigMap", kOperatorNs, cm->name()));
  }
  st_.failing.clear();
  return absl::OkStatus();
}

void SamplesReducer::HandleDeletion(Ctx& c, Cfg& cfg) {
  UpdateClusterOperator(c, cfg, /*deletion=*/true);
  const bool finalizer = HasFinalizer(cfg.obj->json());
  // A missing SamplesExist counts as "not False".
  if (!ConditionFalse(cfg.status, kSamplesExist) && finalizer) {
    if (auto s = CleanupNamespace(c); !s.ok()) return;
    GoodConditionUpdate(cfg.status, kSamplesExist, "False", c.now);
    WriteConfigStatus(c, cfg);
    return;
  }
  if (!finalizer) return;
  Json o = cfg.obj->json();
  o.erase("status");
  Json kept = Json::array();
  for (const Json& f : o["metadata"]["finalizers"])
    if (!(f.is_string() && f.get<std::string>() == kFinalizer)) kept.push_back(f);
  o["metadata"]["finalizers"] = std::move(kept);
  Write(c, "update", o);
  // The Config's Deleted event then brings the default back (Reduce).
}

void SamplesReducer::EndRemoval(Ctx& c) {
  if (!st_.removal) return;
  st_.past_removals.push_back(*st_.removal);
  if (st_.past_removals.size() > 16) st_.past_removals.erase(st_.past_removals.begin());
  st_.removal.reset();
}

}  // namespace recon::samples
