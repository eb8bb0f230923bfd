// Alertwebhook (reference §7): points the `null` and `Default` receivers of
// the alertmanager-main secret at the operator's health endpoint, which
// silences AlertmanagerReceiversNotConfigured. Triggered only by that
// Secret; no conditions.
#ifndef RECON_DOMAINS_ARO_ALERT_WEBHOOK_H_
#define RECON_DOMAINS_ARO_ALERT_WEBHOOK_H_

#include <string>

#include "absl/status/statusor.h"
#include "engine/emit.h"
#include "engine/event.h"
#include "engine/world.h"

namespace recon::aro {

inline constexpr std::string_view kWebhookUrl =
    "http://aro-operator-master.openshift-azure-operator.svc.cluster.local:8080/healthz/ready";

// The new alertmanager.yaml text, or "" when nothing needs to change.
absl::StatusOr<std::string> FixAlertmanagerConfig(std::string_view yaml);

class AlertWebhook {
 public:
  void OnSecret(const engine::Event& event, const engine::World& world, engine::Emit& emit);
  const std::string& last_error() const { return last_error_; }
  engine::Json ToJson() const { return {{"lastError", last_error_}}; }
  void FromJson(const engine::Json& j);

 private:
  std::string last_error_;  // upstream would retry with backoff; kept for explain
};

}  // namespace recon::aro

#endif  // RECON_DOMAINS_ARO_ALERT_WEBHOOK_H_
