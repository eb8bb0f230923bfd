// One DisconnectedFriendlyApp: its two Deployments created or brought back
// in line (image, replicas, labels, owner), then its status (resolved and
// default images, observedGeneration), as upstream's three reconcilers do.
#include "base/strings.h"
#include "domains/disconnected/names.h"
#include "domains/disconnected/operand.h"
#include "domains/disconnected/reducer.h"

namespace recon::disconnected {

using engine::Json;

namespace {

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) recon::StrAppend(&out, out.empty() ? "" : ", ", s);
  return out;
}

// The status fields the upstream CRD declares, in its order: nothing else
// is written (a real server would prune it) nor compared.
constexpr const char* kStatusFields[] = {"observedGeneration", "busyBoxImage", "sleeperImage",
                                         "defaultBusyBoxImage", "defaultSleeperImage"};

Json DeclaredStatus(const Json& status) {
  Json out = Json::object();
  if (!status.is_object()) return out;
  for (const char* f : kStatusFields)
    if (auto it = status.find(f); it != status.end()) out[f] = *it;
  return out;
}

// Upstream's PopulateStatus, field for field (omitempty: a zero generation
// is left out). Declared fields only: an undeclared one the instance shows
// (a server that does not prune) is not carried over.
Json DesiredStatus(const engine::Object& instance, const OperatorEnv& env) {
  Json status = DeclaredStatus(engine::Path(instance.json(), {"status"}));
  const Json& gen = engine::Path(instance.json(), {"metadata", "generation"});
  if (gen.is_number_integer() && gen.get<int64_t>() != 0) status["observedGeneration"] = gen.get<int64_t>();
  status["busyBoxImage"] = ChooseImage(env, kEnvBusyBox, kDefaultBusyBox).image;
  status["sleeperImage"] = ChooseImage(env, kEnvSleeper, kDefaultSleeper).image;
  status["defaultBusyBoxImage"] = kDefaultBusyBox;
  status["defaultSleeperImage"] = kDefaultSleeper;
  return status;
}

}  // namespace

void DisconnectedReducer::SyncAll(Ctx& c) {
  for (const engine::Object* o : c.world.List(kGroup, kKind)) SyncInstance(c, *o);
}

std::vector<const engine::Object*> DisconnectedReducer::OwnersOf(const engine::World& world,
                                                                 const engine::Event& ev) const {
  std::vector<const engine::Object*> out;
  // Most Deployments live where no instance does: skip parsing their bodies
  // (that parse was half of a large replay's time).
  if (world.ListIn(kGroup, kKind, ev.ns).empty()) return out;
  auto add = [&](std::string_view name) {
    const engine::Object* o = world.Get(kGroup, kKind, ev.ns, name);
    if (o == nullptr) return;
    for (const auto* seen : out)
      if (seen == o) return;
    out.push_back(o);
  };
  // By name first (a Deleted event's body may be a bare reference).
  for (const auto& op : Operands()) {
    std::string prefix = recon::StrCat(op.app, "-");
    if (ev.name.size() > prefix.size() && ev.name.substr(0, prefix.size()) == prefix) {
      add(ev.name.substr(prefix.size()));
    }
  }
  if (ev.type != records::EventType::kDeleted) {
    if (const engine::Object* d = world.Get(ev.group, ev.kind, ev.ns, ev.name)) {
      const Json& refs = engine::Path(d->json(), {"metadata", "ownerReferences"});
      if (refs.is_array())
        for (const Json& r : refs)
          if (engine::GetString(r, {"kind"}) == kKind && engine::Path(r, {"controller"}) == Json(true))
            add(engine::GetString(r, {"name"}));
    }
  }
  return out;
}

void DisconnectedReducer::SyncInstance(Ctx& c, const engine::Object& instance) {
  std::string subject = recon::StrCat(kKind, " ", instance.ns(), "/", instance.name());
  if (!engine::Path(instance.json(), {"metadata", "deletionTimestamp"}).is_null()) {
    c.emit.Note(subject, "state", "being deleted: no writes");
    return;
  }
  if (!c.env.waiting.empty()) {
    c.emit.Note(subject, "wait", recon::StrCat("waiting: ", c.env.waiting));
    return;
  }
  for (const auto& op : Operands()) {
    ImageChoice image = ChooseImage(c.env, op.env_var, op.fallback);
    Json desired = DesiredDeployment(instance, op, image.image);
    std::string name = OperandName(op, instance.name());
    const engine::Object* seen = c.world.Get(kAppsGroup, kDeploymentKind, instance.ns(), name);
    if (seen == nullptr) {
      bool recreated =
          c.ev.type == records::EventType::kDeleted && c.ev.kind == kDeploymentKind && c.ev.name == name;
      if (Write(c, "create", desired)) {
        c.emit.Note(subject, "action",
                    recon::StrCat(recreated ? "recreate deleted Deployment " : "create Deployment ", name,
                                  ": image ", image.image, " (", image.Why(c.env), "), replicas ",
                                  desired["spec"]["replicas"].get<int64_t>()));
      }
      continue;
    }
    std::vector<std::string> drift = Drift(seen->json(), desired);
    if (drift.empty()) continue;
    if (Write(c, "update", MergeForUpdate(seen->json(), desired))) {
      c.emit.Note(subject, "action",
                  recon::StrCat("update Deployment ", name, ": ", Join(drift), "; image ", image.image, " (",
                                image.Why(c.env), ")"));
    }
  }
  Json status = DesiredStatus(instance, c.env);
  if (status == DeclaredStatus(engine::Path(instance.json(), {"status"}))) return;
  Json o = Json::object();
  o["apiVersion"] = kApiVersion;
  o["kind"] = kKind;
  o["metadata"] = Json{{"name", instance.name()}, {"namespace", instance.ns()}};
  // A real server refuses an update of a custom resource without one
  // (422 "metadata.resourceVersion: Invalid value: 0x0: must be specified
  // for an update").
  const Json& rv = engine::Path(instance.json(), {"metadata", "resourceVersion"});
  if (rv.is_string() && !rv.get<std::string>().empty()) o["metadata"]["resourceVersion"] = rv;
  o["status"] = status;
  if (Write(c, "updateStatus", o)) {
    c.emit.Note(subject, "action",
                recon::StrCat("status: busyBoxImage ", status["busyBoxImage"].get<std::string>(),
                              ", sleeperImage ", status["sleeperImage"].get<std::string>()));
  }
}

}  // namespace recon::disconnected
