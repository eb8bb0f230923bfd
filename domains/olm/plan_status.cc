// The first status of the InstallPlans the domain creates (upstream's
// createInstallPlan: Create, then UpdateStatus on the created object), of
// another writer's plan that is one of ours under its name, and a plan's
// approval (§10.2).
#include "base/strings.h"
#include "domains/olm/reducer.h"

namespace recon::olm {
namespace {

std::string S(const Json& j, std::string_view k) { return engine::GetString(j, {k}); }

std::string Key(std::string_view kind, std::string_view ns, std::string_view name) {
  return StrCat(kind, "/", ns, "/", name);
}

}  // namespace

const std::pair<const std::string, PendingWrite>* OlmReducer::TwinCreate(const World& w, std::string_view ns,
                                                                          const PlanView& pv) const {
  const std::string prefix = Key("InstallPlan", ns, "");
  for (auto it = st_.created.lower_bound(prefix); it != st_.created.end() && it->first.starts_with(prefix); ++it) {
    const Json& spec = engine::Path(it->second.body, {"spec"});
    const Json& csvs = engine::Path(spec, {"clusterServiceVersionNames"});
    const Json& gen = engine::Path(spec, {"generation"});
    if (!csvs.is_array() || csvs.get<std::vector<std::string>>() != pv.csvs || !gen.is_number_integer() ||
        gen.get<int64_t>() != pv.generation || S(spec, "approval") != pv.approval)
      continue;
    if (w.Get(kGroup, "InstallPlan", ns, it->first.substr(prefix.size())) == nullptr) return &*it;
  }
  return nullptr;
}

bool OlmReducer::WriteCreatedPlanStatus(Ctx& c, const NsIndex* x, std::string_view ns,
                                        std::string_view name) {
  const std::string key = Key("InstallPlan", ns, name);
  if (st_.statuses.contains(key)) return false;
  auto v = x->plans.find(name);
  if (v == x->plans.end() || !v->second.valid || v->second.seen_status) return false;
  auto cr = st_.created.find(key);
  const std::pair<const std::string, PendingWrite>* created = cr == st_.created.end() ? nullptr : &*cr;
  // Another writer's plan that is ours under its name (upstream's catalog
  // operator beside us, shadow mode): its first status is ours, as upstream
  // writes it after its create (U3).
  const bool twin = created == nullptr;
  if (twin) created = TwinCreate(c.world, ns, v->second);
  if (created == nullptr) return false;
  const std::string ours = created->first.substr(Key("InstallPlan", ns, "").size());
  const engine::Object* o = c.world.Get(kGroup, "InstallPlan", ns, name);
  if (o == nullptr) return false;
  Json status = engine::Path(created->second.body, {"status"});
  if (!status.is_object() || S(status, "phase") == "Failed") return true;  // refused create: see Reduce
  if (!PlanStillReferenced(*x, ns, ours)) {
    // Superseded before its status landed (its subscription's status write
    // was lost and a later resolution made another plan): a plan without a
    // phase is never carried out, so it stays so. Giving it a phase now
    // would install a CSV beside the newer plan's, neither replacing the
    // other (two providers of one API).
    c.emit.Note(StrCat("InstallPlan ", ns, "/", name), "state",
                "created, superseded before its status was written: left without a phase (not carried out)");
    return true;
  }
  auto j = engine::ParseJson(o->body());
  if (!j.ok()) return true;
  const Json& approved = engine::Path(*j, {"spec", "approved"});
  // Approved before its status was written (a user quick to approve).
  if (S(status, "phase") == "RequiresApproval" && approved.is_boolean() && approved.get<bool>())
    status["phase"] = "Installing";
  std::string phase = S(status, "phase");
  WriteStatus(c,
              Target{"InstallPlan", o->ns(), o->name(), engine::GetString(*j, {"apiVersion"}, kApiVersion),
                     engine::GetString(*j, {"metadata", "resourceVersion"})},
              std::move(status));
  c.emit.Note(StrCat("InstallPlan ", o->ns(), "/", o->name()), "state",
              twin ? StrCat("created by another writer with the spec of our plan ", ours,
                            " (not seen): its status written as ours (phase ", phase, ")")
                   : StrCat("created: status written (phase ", phase, ")"));
  return true;
}

bool OlmReducer::PlanStillReferenced(const NsIndex& x, std::string_view ns, std::string_view name) const {
  auto refers = [&](const Json& status) {
    return engine::GetString(status, {"installPlanRef", "name"}) == name;
  };
  // A subscription status we wrote and the world may not show yet...
  const std::string prefix = Key("Subscription", ns, "");
  for (auto it = st_.statuses.lower_bound(prefix); it != st_.statuses.end() && it->first.starts_with(prefix);
       ++it)
    if (refers(it->second.body)) return true;
  // ...or one the world shows (ours landed, or another writer's).
  for (const auto& [sub, v] : x.subs)
    if (v.valid && refers(v.Seen())) return true;
  return false;
}

// §10.2: RequiresApproval → Installing once spec.approved is true.
void OlmReducer::OnInstallPlan(Ctx& c) {
  const engine::Object* o = c.world.Get(kGroup, "InstallPlan", c.ev.ns, c.ev.name);
  const NsIndex* x = index_.Find(c.ev.ns);
  if (o == nullptr || x == nullptr) return;
  auto v = x->plans.find(c.ev.name);
  if (v == x->plans.end() || !v->second.valid) return;
  const PlanView& pv = v->second;
  if (WriteCreatedPlanStatus(c, x, c.ev.ns, c.ev.name)) return;
  const Json* pending = PendingOver(c.world, "InstallPlan", c.ev.ns, c.ev.name, pv.seq, pv.seen_status);
  if ((pending ? PlanFactsOf(*pending) : pv.seen).phase != "RequiresApproval") return;
  // Only a plan waiting for approval is parsed again (its status is rewritten whole).
  auto j = engine::ParseJson(o->body());
  if (!j.ok()) return;
  const Json& approved = engine::Path(*j, {"spec", "approved"});
  if (!approved.is_boolean() || !approved.get<bool>()) return;
  const Json& seen = engine::Path(*j, {"status"});
  Json status = pending ? *pending : seen.is_object() ? seen : Json::object();
  status["phase"] = "Installing";
  status.erase("message");
  WriteStatus(c,
              Target{"InstallPlan", o->ns(), o->name(), engine::GetString(*j, {"apiVersion"}, kApiVersion),
                     engine::GetString(*j, {"metadata", "resourceVersion"})},
              std::move(status));
  c.emit.Note(StrCat("InstallPlan ", o->ns(), "/", o->name()), "state",
              "approved (spec.approved: true): Installing");
}

}  // namespace recon::olm
