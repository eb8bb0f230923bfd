#include "domains/aro/conditions.h"

#include <algorithm>

namespace recon::aro {

using engine::Json;

Json Condition::ToJson() const {
  Json j = Json::object();
  j["type"] = type;
  j["status"] = status;
  if (!last_transition_time.empty()) j["lastTransitionTime"] = last_transition_time;
  if (!reason.empty()) j["reason"] = reason;
  if (!message.empty()) j["message"] = message;
  return j;
}

Condition Condition::FromJson(const Json& j) {
  Condition c;
  if (!j.is_object()) return c;
  auto str = [&](std::string_view k) {
    auto it = j.find(k);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  c.type = str("type");
  c.status = str("status");
  c.last_transition_time = str("lastTransitionTime");
  c.reason = str("reason");
  c.message = str("message");
  return c;
}

bool IsKnownConditionType(std::string_view type) {
  static constexpr std::string_view kAll[] = {"InternetReachableFromMaster",
                                              "InternetReachableFromWorker",
                                              "MachineValid",
                                              "ServicePrincipalValid",
                                              "ManagedUpgradeOperatorStatus",
                                              "DefaultIngressCertificate",
                                              "DefaultClusterDNS",
                                              "GuardRailsStatus"};
  for (auto t : kAll) {
    if (t == type) return true;
  }
  for (std::string_view suffix : {"ControllerAvailable", "ControllerProgressing", "ControllerDegraded"}) {
    if (type.size() >= suffix.size() && type.substr(type.size() - suffix.size()) == suffix) return true;
  }
  return false;
}

const Condition* FindCondition(const std::vector<Condition>& conds, std::string_view type) {
  for (const auto& c : conds) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool MergeChecker(std::vector<Condition>& conds, const Condition& c, const std::string& now) {
  for (auto& existing : conds) {
    if (existing.type != c.type) continue;
    bool changed =
        existing.status != c.status || existing.reason != c.reason || existing.message != c.message;
    std::string ltt = existing.status == c.status ? existing.last_transition_time : now;
    existing = c;
    existing.last_transition_time = ltt;
    return changed;
  }
  Condition added = c;
  added.last_transition_time = now;
  conds.push_back(std::move(added));
  return true;
}

bool PruneUnknown(std::vector<Condition>& conds, std::vector<std::string>* removed) {
  size_t before = conds.size();
  auto it = std::remove_if(conds.begin(), conds.end(), [&](const Condition& c) {
    if (IsKnownConditionType(c.type)) return false;
    if (removed) removed->push_back(c.type);
    return true;
  });
  conds.erase(it, conds.end());
  return conds.size() != before;
}

void MergeController(std::vector<Condition>& conds, const Condition& c, const std::string& now) {
  for (auto& existing : conds) {
    if (existing.type != c.type) continue;
    if (existing.status != c.status) {
      existing.status = c.status;
      existing.last_transition_time = now;
    }
    existing.reason = c.reason;
    existing.message = c.message;
    return;
  }
  Condition added = c;
  added.last_transition_time = now;
  conds.push_back(std::move(added));
}

}  // namespace recon::aro
