// What a prediction says about an object, compared with what the log shows:
// the field paths where they differ, with both values. Pure; no I/O.
#ifndef RECON_SHADOW_FIELD_DIFF_H_
#define RECON_SHADOW_FIELD_DIFF_H_

#include <string>
#include <string_view>
#include <vector>

#include "engine/json.h"

namespace recon::shadow {

// One differing field: "spec.tags[0].name" (or
// "status.conditions[type=Progressing].reason"), values as compact JSON,
// "(absent)" when the field is not there.
struct FieldDiff {
  std::string path, predicted, observed;
  bool operator==(const FieldDiff&) const = default;
};

inline constexpr std::string_view kAbsent = "(absent)";

// create/update: every field the prediction sets outside metadata and
// status (spec, data, ...) holds in the observed object, as do its
// metadata labels and annotations. Fields the observed object has besides
// (server defaults, other writers' fields) are not differences. Arrays of
// the same length compare element by element (each element a subset: a
// container the server defaulted still matches), others whole.
std::vector<FieldDiff> DiffSpec(const engine::Json& predicted, const engine::Json& observed);

// updateStatus: each predicted condition's status and reason hold in the
// observed condition of the same type (timestamps and messages ignored);
// every other predicted status field holds, except ones named *Time or
// *Timestamp.
std::vector<FieldDiff> DiffStatus(const engine::Json& predicted, const engine::Json& observed);

}  // namespace recon::shadow

#endif  // RECON_SHADOW_FIELD_DIFF_H_
