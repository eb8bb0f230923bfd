#include "domains/disconnected/operand.h"

#include "base/strings.h"
#include "domains/disconnected/names.h"

namespace recon::disconnected {

using engine::Json;

const std::vector<Operand>& Operands() {
  static const auto* ops = new std::vector<Operand>{
      {"busybox", "busyBoxReplicas", kEnvBusyBox, kDefaultBusyBox},
      {"sleeper", "sleeperReplicas", kEnvSleeper, kDefaultSleeper},
  };
  return *ops;
}

std::string OperandName(const Operand& op, std::string_view instance) {
  return recon::StrCat(op.app, "-", instance);
}

int64_t Replicas(const Json& instance, const Operand& op) {
  const Json& r = engine::Path(instance, {"spec", op.replicas_key});
  if (r.is_number_integer()) return r.get<int64_t>();
  return 1;
}

Json DesiredDeployment(const engine::Object& instance, const Operand& op, std::string_view image) {
  const std::string app(op.app);
  const std::string ns(instance.ns());
  Json owner = Json::object();
  owner["apiVersion"] = kApiVersion;
  owner["kind"] = kKind;
  owner["name"] = instance.name();
  owner["uid"] = engine::GetString(instance.json(), {"metadata", "uid"});
  owner["controller"] = true;
  owner["blockOwnerDeletion"] = true;

  Json container = Json::object();
  container["name"] = app;
  container["image"] = image;
  container["command"] = Json::array({"/bin/sleep", "infinity"});
  container["imagePullPolicy"] = "Always";

  Json d = Json::object();
  d["apiVersion"] = "apps/v1";
  d["kind"] = kDeploymentKind;
  d["metadata"] = Json{{"name", OperandName(op, instance.name())},
                       {"namespace", ns},
                       {"labels", Json{{"app", app}}},
                       {"ownerReferences", Json::array({owner})}};
  d["spec"] = Json{
      {"replicas", Replicas(instance.json(), op)},
      {"selector", Json{{"matchLabels", Json{{"app", app}}}}},
      {"template",
       Json{
           {"metadata", Json{{"generateName", app + "-"}, {"namespace", ns}, {"labels", Json{{"app", app}}}}},
           {"spec", Json{{"containers", Json::array({container})}}}}}};
  return d;
}

namespace {

std::string Show(const Json& j) {
  return j.is_null() ? "unset" : j.is_string() ? j.get<std::string>() : engine::Dump(j);
}

void Compare(std::vector<std::string>& out, std::string_view what, const Json& have, const Json& want) {
  if (have != want) out.push_back(recon::StrCat(what, " ", Show(have), " -> ", Show(want)));
}

bool HasControllerRef(const Json& observed, const Json& want_ref) {
  const Json& refs = engine::Path(observed, {"metadata", "ownerReferences"});
  if (!refs.is_array()) return false;
  for (const Json& r : refs) {
    if (engine::GetString(r, {"uid"}) == engine::GetString(want_ref, {"uid"}) &&
        engine::GetString(r, {"kind"}) == engine::GetString(want_ref, {"kind"}) &&
        engine::Path(r, {"controller"}) == Json(true))
      return true;
  }
  return false;
}

// Same container names in the same order: fields are laid over each;
// otherwise the list is replaced (upstream replaces it wholesale).
bool SameContainerNames(const Json& have, const Json& want) {
  if (!have.is_array() || have.size() != want.size()) return false;
  for (size_t i = 0; i < want.size(); ++i) {
    if (engine::Path(have[i], {"name"}) != want[i]["name"]) return false;
  }
  return true;
}

const char* const kContainerFields[] = {"image", "command", "imagePullPolicy"};

}  // namespace

std::vector<std::string> Drift(const Json& observed, const Json& desired) {
  std::vector<std::string> out;
  const Json& want_ref = desired["metadata"]["ownerReferences"][0];
  if (!HasControllerRef(observed, want_ref)) out.push_back("controller ownerReference missing");
  Compare(out, "label app", engine::Path(observed, {"metadata", "labels", "app"}),
          desired["metadata"]["labels"]["app"]);
  Compare(out, "replicas", engine::Path(observed, {"spec", "replicas"}), desired["spec"]["replicas"]);
  Compare(out, "selector", engine::Path(observed, {"spec", "selector"}), desired["spec"]["selector"]);
  const Json& want_tmeta = desired["spec"]["template"]["metadata"];
  const Json& have_tmeta = engine::Path(observed, {"spec", "template", "metadata"});
  Compare(out, "template generateName", engine::Path(have_tmeta, {"generateName"}),
          want_tmeta["generateName"]);
  Compare(out, "template label app", engine::Path(have_tmeta, {"labels", "app"}),
          want_tmeta["labels"]["app"]);
  const Json& want_c = desired["spec"]["template"]["spec"]["containers"];
  const Json& have_c = engine::Path(observed, {"spec", "template", "spec", "containers"});
  if (!SameContainerNames(have_c, want_c)) {
    std::vector<std::string> names;
    if (have_c.is_array())
      for (const Json& c : have_c) names.push_back(engine::GetString(c, {"name"}));
    std::string have_names;
    for (const auto& n : names) recon::StrAppend(&have_names, have_names.empty() ? "" : ",", n);
    out.push_back(
        recon::StrCat("containers [", have_names, "] -> [", want_c[0]["name"].get<std::string>(), "]"));
    return out;
  }
  for (size_t i = 0; i < want_c.size(); ++i) {
    for (const char* f : kContainerFields) {
      Compare(out, f, engine::Path(have_c[i], {f}), want_c[i][f]);
    }
  }
  return out;
}

Json MergeForUpdate(const Json& observed, const Json& desired) {
  Json out = observed;
  out.erase("status");
  Json& meta = out["metadata"];
  meta.erase("managedFields");
  if (!meta["labels"].is_object()) meta["labels"] = Json::object();
  meta["labels"]["app"] = desired["metadata"]["labels"]["app"];
  meta["ownerReferences"] = desired["metadata"]["ownerReferences"];
  if (!out["spec"].is_object()) out["spec"] = Json::object();
  Json& spec = out["spec"];
  spec["replicas"] = desired["spec"]["replicas"];
  spec["selector"] = desired["spec"]["selector"];
  if (!spec["template"].is_object()) spec["template"] = Json::object();
  Json& tmpl = spec["template"];
  if (!tmpl["metadata"].is_object()) tmpl["metadata"] = Json::object();
  const Json& want_tmeta = desired["spec"]["template"]["metadata"];
  tmpl["metadata"]["generateName"] = want_tmeta["generateName"];
  tmpl["metadata"]["namespace"] = want_tmeta["namespace"];
  if (!tmpl["metadata"]["labels"].is_object()) tmpl["metadata"]["labels"] = Json::object();
  tmpl["metadata"]["labels"]["app"] = want_tmeta["labels"]["app"];
  if (!tmpl["spec"].is_object()) tmpl["spec"] = Json::object();
  const Json& want_c = desired["spec"]["template"]["spec"]["containers"];
  Json& have_c = tmpl["spec"]["containers"];
  if (!SameContainerNames(have_c, want_c)) {
    have_c = want_c;
  } else {
    for (size_t i = 0; i < want_c.size(); ++i)
      for (const char* f : kContainerFields) have_c[i][f] = want_c[i][f];
  }
  return out;
}

std::string ContainerImage(const Json& deployment, std::string_view container) {
  const Json& cs = engine::Path(deployment, {"spec", "template", "spec", "containers"});
  if (!cs.is_array()) return "";
  for (const Json& c : cs)
    if (engine::GetString(c, {"name"}) == container) return engine::GetString(c, {"image"});
  return "";
}

}  // namespace recon::disconnected
