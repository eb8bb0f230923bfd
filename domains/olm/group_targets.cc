#include "domains/olm/group_targets.h"

#include <utility>

#include "base/strings.h"
#include "domains/olm/reducer.h"

namespace recon::olm {

void GroupTargetIndex::Build(const engine::World& w) {
  Clear();
  for (const engine::Object* o : w.List(kGroup, "OperatorGroup"))
    Put(StrCat(o->ns(), "/", o->name()), TargetsOfGroup(o->json()));
  ready_ = true;
}

void GroupTargetIndex::Clear() {
  targets_.clear();
  by_ns_.clear();
  all_.clear();
  ready_ = false;
}

void GroupTargetIndex::Put(const std::string& key, GroupTargets t) {
  if (t.all) all_.insert(key);
  for (const std::string& n : t.namespaces) by_ns_[n].insert(key);
  targets_[key] = std::move(t);
}

void GroupTargetIndex::Drop(const std::string& key) {
  auto it = targets_.find(key);
  if (it == targets_.end()) return;
  all_.erase(key);
  for (const std::string& n : it->second.namespaces)
    if (auto b = by_ns_.find(n); b != by_ns_.end()) {
      b->second.erase(key);
      if (b->second.empty()) by_ns_.erase(b);
    }
  targets_.erase(it);
}

std::set<std::string> GroupTargetIndex::Meeting(const std::string& key, const GroupTargets& t) const {
  std::set<std::string> out;
  if (t.all) {
    // Rare (an all-namespaces group): every group with a target.
    for (const auto& [k, other] : targets_)
      if (Intersect(t, other)) out.insert(k);
  } else if (!t.namespaces.empty()) {
    out = all_;
    for (const std::string& n : t.namespaces)
      if (auto b = by_ns_.find(n); b != by_ns_.end()) out.insert(b->second.begin(), b->second.end());
  }
  out.erase(key);
  return out;
}

void GroupTargetIndex::Update(const engine::World& w, std::string_view ns, std::string_view name,
                              std::set<std::string>* wake) {
  const std::string key = StrCat(ns, "/", name);
  auto wake_meeting = [&](const GroupTargets& t) {
    for (const std::string& k : Meeting(key, t)) wake->insert(k.substr(0, k.find('/')));
  };
  if (auto it = targets_.find(key); it != targets_.end()) wake_meeting(it->second);
  Drop(key);
  if (const engine::Object* o = w.Get(kGroup, "OperatorGroup", ns, name)) {
    GroupTargets t = TargetsOfGroup(o->json());
    wake_meeting(t);
    Put(key, std::move(t));
  }
}

engine::Json GroupTargetIndex::ToJson() const {
  if (!ready_) return engine::Json();
  engine::Json out = engine::Json::object();
  for (const auto& [key, t] : targets_)
    out[key] = engine::Json{
        {"all", t.all}, {"namespaces", std::vector<std::string>(t.namespaces.begin(), t.namespaces.end())}};
  return out;
}

void GroupTargetIndex::FromJson(const engine::Json& j) {
  Clear();
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end(); ++it) {
    GroupTargets t;
    t.all = engine::Path(it.value(), {"all"}) == engine::Json(true);
    for (const engine::Json& n : engine::Path(it.value(), {"namespaces"}))
      if (n.is_string()) t.namespaces.insert(n.get<std::string>());
    Put(it.key(), std::move(t));
  }
  ready_ = true;
}

std::set<std::string> GroupTargetIndex::Intersecting(std::string_view ns, std::string_view name) const {
  const std::string key = StrCat(ns, "/", name);
  auto it = targets_.find(key);
  return it == targets_.end() ? std::set<std::string>() : Meeting(key, it->second);
}

}  // namespace recon::olm
