// Kinds the real operators create with a generated name (metadata.generateName
// plus a random suffix): recon's name for such an object can never be the
// operator's, so a predicted create is matched by content instead, per kind
// (shadow/README.md, "Generated names"). Pure; no I/O.
#ifndef RECON_SHADOW_GENERATED_H_
#define RECON_SHADOW_GENERATED_H_

#include <string>
#include <string_view>

#include <vector>

#include "engine/json.h"
#include "shadow/field_diff.h"

namespace recon::shadow {

struct GeneratedKind {
  std::string_view group, kind;
  std::string_view prefix;  // the operator's generateName
};

// The entry of (group, kind), or null when its names are not generated.
const GeneratedKind* GeneratedKindOf(std::string_view group, std::string_view kind);

// What identifies an object of a generated kind within its namespace:
// InstallPlan: the sorted spec.clusterServiceVersionNames and spec.approval.
std::string ContentKey(const GeneratedKind& kind, const engine::Json& object);

// The differences between two objects of the kind that only the order of
// their content key's lists makes (the CSV names are a set): dropped.
void DropUnorderedDiffs(const GeneratedKind& kind, const engine::Json& predicted, const engine::Json& observed,
                        std::vector<FieldDiff>* diffs);

}  // namespace recon::shadow

#endif  // RECON_SHADOW_GENERATED_H_
