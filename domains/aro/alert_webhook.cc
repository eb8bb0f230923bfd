#include "domains/aro/alert_webhook.h"

#include "absl/strings/escaping.h"
#include "base/strings.h"
#include "domains/aro/common.h"
#include "domains/aro/flags.h"
#include "engine/yaml_json.h"

namespace recon::aro {

namespace {

constexpr std::string_view kView = "aro/alertmanager";

// The config as the controller reads it: the Secret's view, or, in a log
// recorded without it (a hand-written scenario keeps the values), the
// document itself.
absl::StatusOr<Json> ReadConfig(const engine::Object& secret) {
  const Json& view = engine::Path(secret.json(), {engine::kSecretViewsField, kView});
  if (view.is_object() && view.contains("reconError"))
    return absl::InvalidArgumentError(Str(view, "reconError"));
  if (!view.is_null()) return view;
  std::string encoded = engine::GetString(secret.json(), {"data", "alertmanager.yaml"});
  std::string yaml;
  if (!absl::Base64Unescape(Av(encoded), &yaml))
    return absl::InvalidArgumentError("alertmanager.yaml: invalid base64");
  return engine::ParseYaml(yaml);
}

}  // namespace

engine::SecretView AlertmanagerView() {
  return {"openshift-monitoring",
          "alertmanager-main",
          std::string(kView),
          engine::SecretView::Form::kYamlTree,
          {"alertmanager.yaml"},
          {{{"receivers", "*", "name"}},
           {{"receivers", "*", "webhook_configs", "*", "url"}, {std::string(kWebhookUrl)}}}};
}

bool FixAlertmanagerConfig(Json& config) {
  if (!config.is_object()) return false;
  auto receivers = config.find("receivers");
  if (receivers == config.end() || !receivers->is_array()) return false;
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
  return changed;
}

void AlertWebhook::OnSecret(const engine::Event& event, const engine::World& world, engine::Emit& emit) {
  const engine::Object* cluster = GetCluster(world);
  if (cluster == nullptr || !Flags::FromCluster(cluster->json()).Enabled(kFlagAlertWebhookEnabled)) return;
  const engine::Object* secret = world.Get("", "Secret", "openshift-monitoring", "alertmanager-main");
  if (secret == nullptr) {
    last_error_ = "secrets \"alertmanager-main\" not found";
    return;
  }
  auto config = ReadConfig(*secret);
  if (!config.ok()) {
    last_error_ = std::string(Sv(config.status().message()));
    return;
  }
  last_error_.clear();
  if (!FixAlertmanagerConfig(*config)) return;
  Json obj = secret->json();
  obj.erase(std::string(engine::kSecretViewsField));
  obj["data"]["alertmanager.yaml"] = absl::Base64Escape(Av(engine::EmitYaml(*config)));
  emit.Update(obj);
}

void AlertWebhook::FromJson(const Json& j) { last_error_ = Str(j, "lastError"); }

}  // namespace recon::aro
