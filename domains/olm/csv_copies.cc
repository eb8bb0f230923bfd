// Copied CSVs under csvLifecycle (reference olm-operator.md §B.5): after
// a CSV's own sync, its copies in the namespaces its OperatorGroup targets
// are created and kept as the parent is, and copies that lost their parent
// or its target are deleted. Copies are never synced as CSVs themselves.
#include <set>
#include <string>

#include "absl/strings/str_split.h"
#include "base/strings.h"
#include "domains/olm/csv/copies.h"
#include "domains/olm/csv/phase.h"
#include "domains/olm/reducer.h"
#include "engine/time_format.h"

namespace recon::olm {

namespace {

// The namespaces a grouped CSV's copies go to ("" in the set: all), from
// its annotations as the group sync wrote them; nullopt when the CSV is
// not (yet) annotated for the namespace's one group.
std::optional<std::set<std::string>> CopyTargets(const Json& csv, const NsIndex& x, std::string_view ns) {
  const Json& a = engine::Path(csv, {"metadata", "annotations"});
  const Json& targets = engine::Path(a, {"olm.targetNamespaces"});
  if (x.groups.size() != 1 || !targets.is_string() ||
      engine::GetString(a, {"olm.operatorGroup"}) != x.groups.begin()->first ||
      engine::GetString(a, {"olm.operatorNamespace"}) != ns)
    return std::nullopt;
  std::set<std::string> out;
  for (absl::string_view t : absl::StrSplit(targets.get_ref<const std::string&>(), ','))
    out.insert(std::string(t));
  return out;
}

}  // namespace

void OlmReducer::SyncCopies(Ctx& c, const NsIndex& x, const engine::Object& o) {
  const Json& csv = o.json();
  const std::string ns(o.ns()), name(o.name());
  if (IsCopiedCsv(csv) || engine::Path(csv, {"metadata", "deletionTimestamp"}).is_string()) return;
  auto targets = CopyTargets(csv, x, ns);
  const bool all = targets && targets->contains("");
  // OwnNamespace: nothing to copy (§B.5.1).
  const bool copies = targets && CsvCopiable(csv) && (all || *targets != std::set<std::string>{ns});
  // OLMConfig disableCopiedCSVs (§B.5.3): an all-namespaces group's CSV
  // keeps copies only in the protected namespaces.
  const engine::Object* cfg = c.world.Get(kGroup, kOlmConfig, "", "cluster");
  const bool disabled = all && !CopiedCsvsEnabled(cfg == nullptr ? nullptr : &cfg->json());
  if (copies) {
    std::vector<std::string> where;
    for (const engine::Object* n : c.world.List("", "Namespace")) {
      const std::string t(n->name());
      if (t != ns && (all || targets->contains(t)) && (!disabled || protected_copy_ns_.contains(t)))
        where.push_back(t);
    }
    for (const std::string& t : where) EnsureCopy(c, csv, t);
  }
  if (targets && (all || *targets != std::set<std::string>{ns})) SpreadRbac(c, o, *targets, all, copies);
  CollectCopies(c, ns, name, &csv, disabled ? &protected_copy_ns_ : nullptr);
}

void OlmReducer::SyncOlmConfig(Ctx& c) {
  const engine::Object* cfg = c.world.Get(kGroup, kOlmConfig, "", "cluster");
  if (cfg == nullptr || WriteHeld(c, kGroup, kOlmConfig, "", "cluster")) return;
  const bool enabled = CopiedCsvsEnabled(&cfg->json());
  // Namespaces a copy may be in: Active ones (a namespace with no phase
  // yet counts: a real server sets Active on create).
  std::set<std::string> active;
  for (const engine::Object* n : c.world.List("", "Namespace")) {
    const std::string phase = engine::GetString(n->json(), {"status", "phase"});
    if (phase.empty() || phase == "Active") active.insert(std::string(n->name()));
  }
  bool mismatch = false;
  for (const auto& [ns, x] : index_.namespaces()) {
    if (x.groups.size() != 1) continue;
    const engine::Object* og = c.world.Get(kGroup, "OperatorGroup", ns, x.groups.begin()->first);
    const Json& targets = og == nullptr ? Json() : engine::Path(og->json(), {"status", "namespaces"});
    if (!targets.is_array() || targets.size() != 1 || targets[0] != "") continue;  // not all-namespaces
    std::set<std::string> expected;
    if (!enabled) {
      expected = protected_copy_ns_;
      expected.erase(ns);
    }
    for (const auto& [name, view] : x.csvs) {
      const engine::Object* o = c.world.Get(kGroup, kCsv, ns, name);
      if (o == nullptr || IsCopiedCsv(o->json())) continue;
      std::set<std::string> where;
      for (const auto& [other, y] : index_.namespaces()) {
        if (other == ns || !y.csvs.contains(name)) continue;
        // A copy write of ours on its way: counted once it is seen
        // (upstream counts five seconds after the copies' sync).
        if (c.world.writes().Pending(kDomain, kGroup, kCsv, other, name) != nullptr) return;
        const engine::Object* copy = c.world.Get(kGroup, kCsv, other, name);
        if (copy != nullptr && copy->Label("olm.copiedFrom") == ns) where.insert(other);
      }
      mismatch |= enabled ? where.size() + 1 != active.size() : where != expected;
    }
  }
  const CopiedCsvsCondition want = DisabledCopiedCsvsCondition(enabled, mismatch);
  if (auto status = OlmConfigStatus(cfg->json(), want, engine::FormatRfc3339Seconds(c.ev.time_ns))) {
    c.emit.Note(StrCat(kOlmConfig, " cluster"), "state",
                StrCat("DisabledCopiedCSVs ", want.status, " (", want.reason, "): ", want.message));
    WriteStatus(c,
                Target{kOlmConfig, "", "cluster", engine::GetString(cfg->json(), {"apiVersion"}),
                       engine::GetString(cfg->json(), {"metadata", "resourceVersion"})},
                std::move(*status));
  }
}

void OlmReducer::EnsureCopy(Ctx& c, const Json& parent, const std::string& ns) {
  const std::string name = engine::GetString(parent, {"metadata", "name"});
  if (c.world.writes().Pending(kDomain, kGroup, kCsv, ns, name) != nullptr ||
      (c.ev.type != records::EventType::kTimer &&
       c.world.writes().Refused(kDomain, kGroup, kCsv, ns, name) != nullptr))
    return;
  Json want = CsvCopy(parent, ns);
  const std::string subject = StrCat(kCsv, " ", ns, "/", name);
  const engine::Object* live = c.world.Get(kGroup, kCsv, ns, name);
  if (live == nullptr) {
    // The status goes in its own write once the copy is seen (the server
    // drops a status sent with a create).
    want.erase("status");
    c.emit.Create(std::move(want));
    c.emit.Note(subject, "state",
                StrCat("copied from ", engine::GetString(parent, {"metadata", "namespace"})));
    return;
  }
  if (!IsCopiedCsv(live->json())) {
    // A CSV of the same name that is no copy (upstream's create of the
    // copy fails AlreadyExists): left alone.
    c.emit.Note(subject, "wait", "not copied: a CSV of this name that is no copy is there");
    return;
  }
  const std::string rv = engine::GetString(live->json(), {"metadata", "resourceVersion"});
  if (CopyMetadataDiffers(want, live->json())) {
    Json update = want;
    update.erase("status");
    update["metadata"]["resourceVersion"] = rv;
    c.emit.Update(std::move(update));
    c.emit.Note(subject, "state", "copy brought up to date with its parent");
    return;  // its echo brings the status write, if one is due
  }
  if (CopyStatusDiffers(want, live->json())) {
    WriteStatus(c, Target{kCsv, ns, name, engine::GetString(want, {"apiVersion"}), rv},
                std::move(want["status"]));
  }
}

void OlmReducer::CollectOrphanedCopies(Ctx& c) {
  const Event& ev = c.ev;
  std::string ns, name;
  if (ev.IsObject() && ev.group == kGroup && ev.kind == kCsv) {
    ns = ev.ns;
    name = ev.name;
  } else if (const engine::TrackedWrite* a = c.world.writes().answered();
             ev.type == records::EventType::kActionResult && a != nullptr && a->domain == kDomain &&
             a->group == kGroup && a->kind == kCsv) {
    // Our write to a copy answered after its echo: the collection at the
    // echo skipped the copy while the write was on its way (beside a real
    // API server a copy whose parent was replaced stayed for good).
    const engine::Object* copy = c.world.Get(kGroup, kCsv, a->ns, a->name);
    if (copy == nullptr || !IsCopiedCsv(copy->json())) return;
    ns = a->ns;
    name = a->name;
  } else {
    return;
  }
  // A CSV gone: its copies dangle (§B.5.2); so does a copy seen after its
  // parent went (one whose delete waited for a write to it to be seen).
  const engine::Object* o = c.world.Get(kGroup, kCsv, ns, name);
  const std::string parent_ns = o == nullptr ? ns : o->Label("olm.copiedFrom");
  if (!parent_ns.empty() && (o == nullptr || IsCopiedCsv(o->json())) &&
      c.world.Get(kGroup, kCsv, parent_ns, name) == nullptr)
    CollectCopies(c, parent_ns, name, nullptr);
}

void OlmReducer::CollectCopies(Ctx& c, const std::string& parent_ns, const std::string& name,
                               const Json* parent, const std::set<std::string>* only_in) {
  for (const auto& [ns, x] : index_.namespaces()) {
    if (ns == parent_ns || !x.csvs.contains(name)) continue;
    const engine::Object* o = c.world.Get(kGroup, kCsv, ns, name);
    if (o == nullptr || !IsCopiedCsv(o->json()) ||
        engine::GetString(o->json(), {"metadata", "labels", "olm.copiedFrom"}) != parent_ns ||
        c.world.writes().Pending(kDomain, kGroup, kCsv, ns, name) != nullptr)
      continue;
    std::string why = DanglingCopyReason(o->json(), parent);
    if (why.empty() && only_in != nullptr && !only_in->contains(ns))
      why = StrCat("copied CSVs are disabled (OLMConfig cluster) and ", ns, " is not a protected namespace");
    if (why.empty()) continue;
    c.emit.Note(StrCat(kCsv, " ", ns, "/", name), "state", StrCat("copy deleted: ", why));
    c.emit.Delete(Json{{"apiVersion", engine::GetString(o->json(), {"apiVersion"})},
                       {"kind", kCsv},
                       {"metadata", {{"name", name}, {"namespace", ns}}}});
  }
}

}  // namespace recon::olm
