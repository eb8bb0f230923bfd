// Config status conditions with upstream's helper semantics (reference
// §2.3): reading a missing condition creates it False; a "good" update
// clears reason and message; an "error" update changes on status or message.
#ifndef RECON_DOMAINS_SAMPLES_CONDITIONS_H_
#define RECON_DOMAINS_SAMPLES_CONDITIONS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/json.h"

namespace recon::samples {

using engine::Json;

// The condition of `type` in status.conditions, or nullptr.
const Json* FindCondition(const Json& status, std::string_view type);
// Get-or-create: a missing condition is appended with status False and both
// timestamps = now.
Json& Condition(Json& status, std::string_view type, int64_t now_ns);

// True only when the condition exists with that status.
bool ConditionIs(const Json& status, std::string_view type, std::string_view value);
inline bool ConditionTrue(const Json& s, std::string_view t) { return ConditionIs(s, t, "True"); }
inline bool ConditionFalse(const Json& s, std::string_view t) { return ConditionIs(s, t, "False"); }
std::string ConditionMessage(const Json& status, std::string_view type);

// Returns whether the status changed.
bool GoodConditionUpdate(Json& status, std::string_view type, std::string_view value, int64_t now_ns);
bool ErrorConditionUpdate(Json& status, std::string_view type, std::string_view value,
                          std::string_view reason, std::string_view message, int64_t now_ns);
// recon-only: replaces the message of an existing condition (keeps status).
bool SetConditionMessage(Json& status, std::string_view type, std::string_view message, int64_t now_ns);

// Upstream's reason for a non-API error (§2.3 rules 2 and 3).
std::string_view ErrorReason(std::string_view type, std::string_view value);

// The status as the API would serialize it (Go field order, omitempty).
Json NormalizedStatus(const Json& status);

}  // namespace recon::samples

#endif  // RECON_DOMAINS_SAMPLES_CONDITIONS_H_
