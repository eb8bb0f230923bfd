// Alertwebhook (reference §7): points the `null` and `Default` receivers of
// the alertmanager-main secret at the operator's health endpoint, which
// silences AlertmanagerReceiversNotConfigured. Triggered only by that
// Secret; no conditions. Its values are redacted before a reducer sees
// them: it reads the Secret view AlertmanagerView() (the document's
// structure, receiver names and the operator's own URL in clear), and the
// markers it writes back are put back at dispatch (engine/REDACTION.md).
#ifndef RECON_DOMAINS_ARO_ALERT_WEBHOOK_H_
#define RECON_DOMAINS_ARO_ALERT_WEBHOOK_H_

#include <string>

#include "absl/status/statusor.h"
#include "engine/emit.h"
#include "engine/event.h"
#include "engine/json.h"
#include "engine/secret_view.h"
#include "engine/world.h"

namespace recon::aro {

inline constexpr std::string_view kWebhookUrl =
    "http://aro-operator-master.openshift-azure-operator.svc.cluster.local:8080/healthz/ready";

// The view of alertmanager-main's alertmanager.yaml the controller needs.
engine::SecretView AlertmanagerView();

// Points the `null` and `Default` receivers of a parsed config at
// kWebhookUrl; whether anything changed.
bool FixAlertmanagerConfig(engine::Json& config);

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
