// A ClusterServiceVersion's phase as the olm operator sets it (reference
// olm-operator.md §B.2.1; upstream's SetPhase, SetPhaseWithEvent and
// SetPhaseWithEventIfChanged at v0.24.0): status.phase, reason, message,
// the two times, and the conditions history capped at 20 entries.
#ifndef RECON_DOMAINS_OLM_CSV_PHASE_H_
#define RECON_DOMAINS_OLM_CSV_PHASE_H_

#include <string>
#include <string_view>

#include "engine/json.h"

namespace recon::olm {

struct CsvPhase {
  std::string phase;    // Pending, InstallReady, Installing, Succeeded, Failed, Replacing, Deleting
  std::string reason;   // e.g. RequirementsUnknown
  std::string message;  // e.g. requirements not yet checked
};

// A copy of a CSV in a target namespace (status.reason Copied, or the
// olm.copiedFrom label): the olm operator never moves its phase, and it is
// neither counted nor annotated.
bool IsCopiedCsv(const engine::Json& csv);

// The history upstream keeps (ConditionsLengthLimit).
inline constexpr size_t kCsvConditionsLimit = 20;

// Upstream's SetPhase on `status` (the CSV's status object; created when
// not an object) at `now` (RFC 3339, from the event's time). Always a
// status write: upstream's in-memory time always moves lastUpdateTime, so
// its unconditional calls (the phase table's `ev` rows) write every sync.
void SetCsvPhase(engine::Json& status, const CsvPhase& to, std::string_view now);

// SetPhaseWithEventIfChanged: nothing when phase, reason and message are
// all as `to`; else SetCsvPhase. Whether it set.
bool SetCsvPhaseIfChanged(engine::Json& status, const CsvPhase& to, std::string_view now);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CSV_PHASE_H_
