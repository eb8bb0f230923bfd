#include "domains/aro/alert_webhook.h"

#include "absl/strings/escaping.h"
#include "base/strings.h"
#include "domains/aro/common.h"
#include "domains/aro/flags.h"
#include "domains/aro/yaml_json.h"

namespace recon::aro {

absl::StatusOr<std::string> FixAlertmanagerConfig(std::string_view yaml) {
  auto config = ParseYaml(yaml);
  if (!config.ok()) return config.status();
  if (!config->is_object()) return std::string();
  auto receivers = config->find("receivers");
  if (receivers == config->end() || !receivers->is_array()) return std::string();
  Json want = Json::array({{{"url", kWebhookUrl}}});
  bool changed = false;
  for (auto& r : *receivers) {
    if (!r.is_object()) continue;
    auto name = r.find("name");
    if (name == r.end() || !(*name == Json("null") || *name == Json("Default"))) continue;
    if (auto wc = r.find("webhook_configs"); wc != r.end() && *wc == want) continue;
    r["webhook_configs"] = want;  // wholesale: extra entries and fields go
    changed = true;
  }
  return changed ? EmitYaml(*config) : std::string();
}

void AlertWebhook::OnSecret(const engine::Event& event, const engine::World& world, engine::Emit& emit) {
  const engine::Object* cluster = GetCluster(world);
  if (cluster == nullptr || !Flags::FromCluster(cluster->json()).Enabled(kFlagAlertWebhookEnabled)) return;
  const engine::Object* secret = world.Get("", "Secret", "openshift-monitoring", "alertmanager-main");
  if (secret == nullptr) {
    last_error_ = "secrets \"alertmanager-main\" not found";
    return;
  }
  std::string encoded = engine::GetString(secret->json(), {"data", "alertmanager.yaml"});
  std::string yaml;
  if (!absl::Base64Unescape(Av(encoded), &yaml)) {
    last_error_ = "alertmanager.yaml: invalid base64";
    return;
  }
  auto fixed = FixAlertmanagerConfig(yaml);
  if (!fixed.ok()) {
    last_error_ = std::string(Sv(fixed.status().message()));
    return;
  }
  last_error_.clear();
  if (fixed->empty()) return;
  Json obj = secret->json();
  obj["data"]["alertmanager.yaml"] = absl::Base64Escape(Av(*fixed));
  emit.Update(obj);
}

void AlertWebhook::FromJson(const Json& j) { last_error_ = Str(j, "lastError"); }

}  // namespace recon::aro
