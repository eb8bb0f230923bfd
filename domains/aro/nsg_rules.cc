#include "domains/aro/nsg_rules.h"

#include "domains/aro/common.h"

namespace recon::aro {

Json DefaultApiServerRule() {
  return {{"name", "apiserver_in"},
          {"properties",
           {{"protocol", "Tcp"},
            {"sourcePortRange", "*"},
            {"destinationPortRange", "6443"},
            {"sourceAddressPrefix", "*"},
            {"destinationAddressPrefix", "*"},
            {"access", "Allow"},
            {"priority", 120},
            {"direction", "Inbound"}}}};
}

namespace {

// Azure echoes enum values in its own case; compare strings ignoring it.
bool RuleMatches(const Json& have, const Json& want) {
  const Json& hp = engine::Path(have, {"properties"});
  const Json& wp = want["properties"];
  for (auto it = wp.begin(); it != wp.end(); ++it) {
    auto h = hp.is_object() ? hp.find(it.key()) : hp.end();
    if (!hp.is_object() || h == hp.end()) return false;
    if (it.value().is_string()) {
      if (!h->is_string() || !EqualFold(h->get<std::string>(), it.value().get<std::string>())) return false;
    } else if (*h != it.value()) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<Json> RestoreDefaultRules(const Json& nsg, bool api_public, std::string* drift) {
  if (!nsg.is_object()) return std::nullopt;
  Json out = nsg;
  if (!out["spec"].is_object()) out["spec"] = Json::object();
  Json& rules = out["spec"]["securityRules"];
  if (!rules.is_array()) rules = Json::array();
  Json want = DefaultApiServerRule();
  for (size_t i = 0; i < rules.size(); ++i) {
    if (!EqualFold(Str(rules[i], "name"), "apiserver_in")) continue;
    if (!api_public) {
      *drift = "apiserver_in present on a private cluster";
      rules.erase(rules.begin() + i);
      return out;
    }
    if (RuleMatches(rules[i], want)) return std::nullopt;
    *drift = "apiserver_in modified";
    Json fixed = rules[i];
    if (!fixed["properties"].is_object()) fixed["properties"] = Json::object();
    for (auto it = want["properties"].begin(); it != want["properties"].end(); ++it) {
      fixed["properties"][it.key()] = it.value();
    }
    rules[i] = std::move(fixed);
    return out;
  }
  if (!api_public) return std::nullopt;
  *drift = "apiserver_in missing";
  rules.push_back(std::move(want));
  return out;
}

}  // namespace recon::aro
