// The Operator API's component label (OLM v0.24.0's adoption controller,
// pkg/controller/operators/adoption_controller.go; not in the reference,
// read from that source in session 28): `operators.coreos.com/<package>.<namespace>`
// = "" on a Subscription, the CSV it installed and its latest InstallPlan,
// and, for each such label on a CSV, on every object that CSV owns (an
// owner reference with its uid, or its three olm.owner labels) and on its
// owned CRDs. Users find (and delete) an operator's parts by it.
#ifndef RECON_DOMAINS_OLM_CSV_COMPONENT_LABELS_H_
#define RECON_DOMAINS_OLM_CSV_COMPONENT_LABELS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/json.h"

namespace recon::olm {

inline constexpr std::string_view kComponentLabelPrefix = "operators.coreos.com/";

// The label key of an operator named `name` ("<package>.<namespace>"): the
// name cut to 63 bytes and stripped of trailing '.', '_' and '-'; nullopt
// when nothing is left.
std::optional<std::string> ComponentLabelKey(std::string_view name);

// The operators a CSV belongs to: each of its labels with the prefix (any
// value), as label keys, in key order.
std::vector<std::string> CsvComponentKeys(const engine::Json& csv);

// Whether `object` is the CSV's: an owner reference with the CSV's uid, or
// the olm.owner labels naming the CSV (kind ClusterServiceVersion).
bool IsCsvComponent(const engine::Json& object, const engine::Json& csv);

// Whether the object carries the label key (any value).
bool HasLabel(const engine::Json& object, std::string_view key);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CSV_COMPONENT_LABELS_H_
