// What a prediction says about an object, compared with what the log shows:
// the field paths where they differ, with both values. Pure; no I/O.
#ifndef RECON_SHADOW_FIELD_DIFF_H_
#define RECON_SHADOW_FIELD_DIFF_H_

#include <map>
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

// What a comparison leaves out besides the fixed rules below.
struct DiffRules {
  // Conditions whose message is free text (not compared): "Kind/Type",
  // "Kind/*" or "*" (DomainDescriptor::free_text_messages).
  std::vector<std::string> free_text;
  // Lists compared as sets, "Kind/path" (DomainDescriptor::unordered_lists).
  std::vector<std::string> unordered;
  // Values compared for presence only, "Kind/path" (DomainDescriptor::opaque_values).
  std::vector<std::string> opaque;
  // Names recon gave objects the real operator creates with a generated
  // name (predicted name -> its generateName prefix, shadow/generated.h):
  // such a value holds when the observed one is the name the object was
  // matched to by content (`aliases`), or, before that, any name with
  // the same prefix.
  const std::map<std::string, std::string>* generated = nullptr;
  const std::map<std::string, std::string>* aliases = nullptr;
};

// Never a difference, wherever they are: a value that is an RFC 3339 time
// (the operator's clock is not recon's), and the server's bookkeeping
// (`uid`, `resourceVersion` keys at any depth).
bool IsRfc3339Time(std::string_view s);

// create/update: every field the prediction sets outside metadata and
// status (spec, data, ...) holds in the observed object, as do its
// metadata labels and annotations. Fields the observed object has besides
// (server defaults, other writers' fields) are not differences. Arrays of
// the same length compare element by element (each element a subset: a
// container the server defaulted still matches), others whole.
std::vector<FieldDiff> DiffSpec(const engine::Json& predicted, const engine::Json& observed,
                                const DiffRules& rules = {});

// updateStatus: each predicted condition is compared whole with the
// observed condition of the same type: `status`, `reason` and `message`
// (one the prediction leaves out must be absent or empty there too; a
// free-text message is not compared), timestamps ignored; an observed
// condition of a type the predicted list leaves out is a difference (the
// write replaces the status: it removes it); conditions without a `type`
// (a CSV's history of phases) compare entry by entry; every other
// predicted status field holds.
std::vector<FieldDiff> DiffStatus(const engine::Json& predicted, const engine::Json& observed,
                                  const DiffRules& rules = {});

}  // namespace recon::shadow

#endif  // RECON_SHADOW_FIELD_DIFF_H_
