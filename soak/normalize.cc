#include "soak/normalize.h"

#include <algorithm>
#include <set>
#include <vector>

#include "base/strings.h"
#include "engine/json.h"

namespace recon::soak {
namespace {

using engine::Json;

void DropKeys(Json& j, const std::set<std::string>& keys) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end();) {
      if (keys.contains(it.key())) {
        it = j.erase(it);
      } else {
        DropKeys(*it, keys);
        ++it;
      }
    }
  } else if (j.is_array()) {
    for (auto& e : j) DropKeys(e, keys);
  }
}

// Conditions keep the order they were first set in, which is history, not
// state: compare them by type.
void SortConditions(Json& j) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "conditions" && it->is_array()) {
        std::vector<Json> v(it->begin(), it->end());
        std::stable_sort(v.begin(), v.end(), [](const Json& a, const Json& b) {
          return engine::GetString(a, {"type"}) < engine::GetString(b, {"type"});
        });
        *it = Json(v);
      } else {
        SortConditions(*it);
      }
    }
  } else if (j.is_array()) {
    for (auto& e : j) SortConditions(e);
  }
}

struct Difference {
  std::string path;
  const Json* a;  // null: absent
  const Json* b;
};

void Differences(const Json* a, const Json* b, const std::string& path, std::vector<Difference>* out) {
  if (out->size() >= 8 || (a != nullptr && b != nullptr && *a == *b)) return;
  if (a != nullptr && b != nullptr && a->is_object() && b->is_object()) {
    std::set<std::string> keys;
    for (auto it = a->begin(); it != a->end(); ++it) keys.insert(it.key());
    for (auto it = b->begin(); it != b->end(); ++it) keys.insert(it.key());
    for (const auto& k : keys) {
      auto ia = a->find(k), ib = b->find(k);
      Differences(ia == a->end() ? nullptr : &*ia, ib == b->end() ? nullptr : &*ib,
                  recon::StrCat(path, ".", k), out);
    }
    return;
  }
  if (a != nullptr && b != nullptr && a->is_array() && b->is_array() && a->size() == b->size()) {
    for (size_t i = 0; i < a->size(); ++i)
      Differences(&(*a)[i], &(*b)[i], recon::StrCat(path, "[", i, "]"), out);
    return;
  }
  out->push_back({path.empty() ? "." : path, a, b});
}

std::string Shown(const Json* j) {
  if (j == nullptr) return "(absent)";
  std::string s = engine::Dump(*j);
  return s.size() > 200 ? recon::StrCat(s.substr(0, 200), "...") : s;
}

}  // namespace

std::string JsonDifferences(std::string_view a_json, std::string_view b_json, std::string_view a_name,
                            std::string_view b_name) {
  auto a = engine::ParseJson(a_json), b = engine::ParseJson(b_json);
  if (!a.ok() || !b.ok())
    return recon::StrCat("\n    ", a_name, " ", a_json.substr(0, 300), "\n    ", b_name, " ",
                         b_json.substr(0, 300));
  std::vector<Difference> diffs;
  Differences(&*a, &*b, "", &diffs);
  std::string out;
  for (const auto& d : diffs)
    recon::StrAppend(&out, "\n    ", d.path, ": ", a_name, " ", Shown(d.a), " | ", b_name, " ", Shown(d.b));
  return out;
}

std::string NormalizeForSoak(std::string_view object_json) {
  auto j = engine::ParseJson(object_json);
  if (!j.ok()) return std::string(object_json);
  if (auto md = j->find("metadata"); md != j->end() && md->is_object()) {
    for (const char* k : {"resourceVersion", "uid", "creationTimestamp", "generation", "managedFields"})
      md->erase(k);
    if (auto refs = md->find("ownerReferences"); refs != md->end() && refs->is_array())
      for (auto& r : *refs)
        if (r.is_object()) r.erase("uid");
  }
  // An imagestream tag's status keeps every image it was imported from,
  // newest first: which of the earlier ones are there depends on which
  // imports finished before the spec moved on (a registry override set and
  // removed while the agent was down imports nothing). The newest item is
  // the tag's state; the rest is history.
  if (engine::GetString(*j, {"kind"}) == "ImageStream") {
    if (auto st = j->find("status"); st != j->end() && st->is_object()) {
      if (auto tags = st->find("tags"); tags != st->end() && tags->is_array()) {
        for (auto& t : *tags) {
          if (!t.is_object()) continue;
          auto items = t.find("items");
          if (items != t.end() && items->is_array() && items->size() > 1)
            items->erase(items->begin() + 1, items->end());
        }
      }
    }
  }
  // Which CSV an operator's CSV replaces is the one installed when its plan
  // was resolved: history, like the plans themselves (NormalizeOlmState).
  if (engine::GetString(*j, {"kind"}) == "ClusterServiceVersion") {
    if (auto sp = j->find("spec"); sp != j->end() && sp->is_object()) sp->erase("replaces");
    // A requirement's uuid is the CRD's uid (metadata.uid, dropped above);
    // status.conditions is the CSV's past phases (upstream keeps the last
    // twenty): history, the phase, reason and message are its state.
    if (auto st = j->find("status"); st != j->end() && st->is_object()) {
      if (auto req = st->find("requirementStatus"); req != st->end() && req->is_array())
        for (auto& r : *req)
          if (r.is_object()) r.erase("uuid");
      st->erase("conditions");
    }
  }
  // Times come from when things happened, generations from how many writes
  // it took: both differ between runs that end in the same state.
  SortConditions(*j);
  DropKeys(*j, {"lastTransitionTime", "lastUpdateTime", "lastHeartbeatTime", "lastSyncTimestamp", "created",
                "lastUpdated", "generation", "observedGeneration",
                // aro's Cluster: when the subnets controller last PUT an NSG.
                "aro.openshift.io/lastSubnetReconcileTimestamp",
                // ARM's own progress on a subnet's service endpoint: an endpoint
                // the operator added back has none in the sim.
                "provisioningState"});
  // An annotations map emptied by the line above says nothing either.
  if (auto md = j->find("metadata"); md != j->end() && md->is_object()) {
    if (auto an = md->find("annotations"); an != md->end() && an->is_object() && an->empty()) md->erase(an);
  }
  // Key order follows who wrote a field first: compare sorted.
  return nlohmann::json::parse(engine::Dump(*j)).dump();
}

}  // namespace recon::soak
