// The default NSG rule set the RP creates for V2 clusters (reference §2.1):
// `apiserver_in` (inbound TCP 6443 from anywhere, Allow, priority 120) when
// the API is public, no custom rule when it is private. Restoring it is a
// recon extension behind aro.restoreDefaultNsgRules; other rules (the cloud
// provider's load-balancer rules) are never touched.
#ifndef RECON_DOMAINS_ARO_NSG_RULES_H_
#define RECON_DOMAINS_ARO_NSG_RULES_H_

#include <optional>
#include <string>

#include "engine/json.h"

namespace recon::aro {

engine::Json DefaultApiServerRule();

// The NSG object with its default rules restored, or nullopt if they have
// not drifted. `drift` says what was wrong.
std::optional<engine::Json> RestoreDefaultRules(const engine::Json& nsg, bool api_public, std::string* drift);

}  // namespace recon::aro

#endif  // RECON_DOMAINS_ARO_NSG_RULES_H_
