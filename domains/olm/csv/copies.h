// Copied CSVs (reference olm-operator.md §B.5, upstream's csvCopyPrototype,
// copyToNamespace and removeDanglingChildCSVs at v0.24.0): the olm
// operator shows an operator's CSV in every namespace its OperatorGroup
// targets, as a copy with status.reason Copied, and deletes copies whose
// parent is gone or no longer targets them.
#ifndef RECON_DOMAINS_OLM_CSV_COPIES_H_
#define RECON_DOMAINS_OLM_CSV_COPIES_H_

#include <optional>
#include <string>
#include <string_view>

#include "engine/json.h"

namespace recon::olm {

// Whether a CSV with this status gets copies: a phase, and a reason that
// is not one of the group failures (nor Copied itself).
bool CsvCopiable(const engine::Json& csv);

// The copy of `parent` in `target_ns`: name, spec and status as the
// parent's (reason Copied, its message naming the parent's namespace);
// labels without operators.coreos.com/* keys, plus olm.copiedFrom;
// annotations without olm.targetNamespaces and kubectl's last applied
// configuration; no owner references.
engine::Json CsvCopy(const engine::Json& parent, std::string_view target_ns);

// What an update of an existing copy brings, each compared as upstream's
// two hashes compare: {name, labels, annotations, spec}, and the status.
bool CopyMetadataDiffers(const engine::Json& want, const engine::Json& live);
bool CopyStatusDiffers(const engine::Json& want, const engine::Json& live);

// Why the copy `copy` in its namespace must be deleted, or "" to keep it.
// `parent` is the CSV of the copy's name in the namespace its
// olm.operatorNamespace annotation names (null when there is none).
std::string DanglingCopyReason(const engine::Json& copy, const engine::Json* parent);

// OLMConfig (reference §B.5.3): copies of the CSVs of all-namespaces
// groups are on unless the cluster's OLMConfig (named "cluster", null when
// there is none) has spec.features.disableCopiedCSVs true.
bool CopiedCsvsEnabled(const engine::Json* olm_config);

// The OLMConfig's DisabledCopiedCSVs condition: whether copies are enabled,
// and whether some all-namespaces CSV has other copies than that calls for
// (enabled: one in every other Active namespace; disabled: only the
// protected namespaces'). Upstream's status, reason and message.
struct CopiedCsvsCondition {
  std::string status, reason, message;
};
CopiedCsvsCondition DisabledCopiedCsvsCondition(bool enabled, bool mismatch);

// The OLMConfig's status with that condition set as Kubernetes'
// SetStatusCondition does (lastTransitionTime `now` when new or its status
// changes); nullopt when a condition of that type already has its status,
// reason and message (upstream writes only then).
std::optional<engine::Json> OlmConfigStatus(const engine::Json& olm_config, const CopiedCsvsCondition& want,
                                            std::string_view now);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CSV_COPIES_H_
