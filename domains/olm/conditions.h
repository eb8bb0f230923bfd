// Subscription conditions (reference §10.4) on a status JSON: set keeps
// lastTransitionTime when type/status/reason/message are unchanged.
#ifndef RECON_DOMAINS_OLM_CONDITIONS_H_
#define RECON_DOMAINS_OLM_CONDITIONS_H_

#include <cstdint>
#include <string_view>

#include "engine/json.h"

namespace recon::olm {

void SetCondition(engine::Json& status, std::string_view type, std::string_view cstatus,
                  std::string_view reason, std::string_view message, int64_t now_ns);
void RemoveCondition(engine::Json& status, std::string_view type);
// The condition of that type, or null.
const engine::Json* FindCondition(const engine::Json& status, std::string_view type);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CONDITIONS_H_
