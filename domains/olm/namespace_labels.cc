// The OperatorGroup labels on Namespaces under csvLifecycle (reference
// olm-operator.md §B.1.6, upstream's syncNamespace): a namespace that a
// group targets, not for all namespaces, carries `olm.operatorgroup.uid/<uid>`
// = "" for that group; other keys of that prefix are removed. Written, one
// update per namespace, only when the set changes, after every other write
// of an event.
#include <set>
#include <string>

#include "base/strings.h"
#include "domains/olm/reducer.h"

namespace recon::olm {
namespace {

constexpr std::string_view kUidPrefix = "olm.operatorgroup.uid/";

// The namespaces a group's status names, unless it targets all of them.
std::set<std::string> Targets(const Json& og) {
  std::set<std::string> out;
  const Json& held = engine::Path(og, {"status", "namespaces"});
  if (!held.is_array() || (held.size() == 1 && held[0] == "")) return out;
  for (const Json& n : held)
    if (n.is_string() && !n.get_ref<const std::string&>().empty()) out.insert(n.get<std::string>());
  return out;
}

}  // namespace

void OlmReducer::LabelNamespaces(Ctx& c) {
  const Event& ev = c.ev;
  std::set<std::string> due;
  if (ev.IsObject() && ev.group == "" && ev.kind == "Namespace" && ev.type != records::EventType::kDeleted) {
    due.insert(std::string(ev.name));
  } else if (ev.IsObject() && ev.group == kGroup && ev.kind == "OperatorGroup") {
    // The namespaces it targets now, and those labelled for it before.
    if (const engine::Object* og = c.world.Get(kGroup, "OperatorGroup", ev.ns, ev.name)) {
      std::set<std::string> t = Targets(og->json());
      due.insert(t.begin(), t.end());
    }
    for (const engine::Object* n : c.world.List("", "Namespace")) {
      const Json& labels = engine::Path(n->json(), {"metadata", "labels"});
      for (auto it = labels.begin(); labels.is_object() && it != labels.end(); ++it)
        if (it.key().starts_with(kUidPrefix)) {
          due.insert(std::string(n->name()));
          break;
        }
    }
  } else if ((ev.type == records::EventType::kCluster ||
              // A refused label write is written again at the requeue timer
              // (RequeueAfterConflict): no event of the Namespace may come.
              (ev.type == records::EventType::kTimer && ev.timer == kRequeueTimer)) &&
             c.world.Synced()) {
    for (const engine::Object* n : c.world.List("", "Namespace")) due.insert(std::string(n->name()));
  }
  if (due.empty()) return;
  // Every group's targets, once.
  std::map<std::string, std::set<std::string>> uids_by_ns;
  for (const engine::Object* og : c.world.List(kGroup, "OperatorGroup")) {
    const std::string uid = engine::GetString(og->json(), {"metadata", "uid"});
    if (uid.empty()) continue;
    for (const std::string& ns : Targets(og->json()))
      if (due.contains(ns)) uids_by_ns[ns].insert(StrCat(kUidPrefix, uid));
  }
  for (const std::string& ns : due) {
    const engine::Object* n = c.world.Get("", "Namespace", "", ns);
    if (n == nullptr || WriteHeld(c, "", "Namespace", "", ns)) continue;
    const Json& labels = engine::Path(n->json(), {"metadata", "labels"});
    std::set<std::string> have;
    for (auto it = labels.begin(); labels.is_object() && it != labels.end(); ++it)
      if (it.key().starts_with(kUidPrefix)) have.insert(it.key());
    const std::set<std::string>& want = uids_by_ns[ns];
    if (have == want) continue;
    Json next = n->json();
    Json& out = next["metadata"]["labels"];
    if (!out.is_object()) out = Json::object();
    for (const std::string& k : have)
      if (!want.contains(k)) out.erase(k);
    for (const std::string& k : want) out[k] = "";
    if (out.empty()) next["metadata"].erase("labels");
    next.erase("status");
    c.emit.Update(std::move(next));
    c.emit.Note(StrCat("Namespace ", ns), "state",
                StrCat("OperatorGroup labels: ", want.size(), " group(s) target it"));
  }
}

}  // namespace recon::olm
