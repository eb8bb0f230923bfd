// Dependency predicates (reference §9.4, §9.6): what a bundle requires of
// another bundle. A compound olm.constraint is tested against ONE bundle.
#ifndef RECON_DOMAINS_OLM_RESOLVE_PREDICATE_H_
#define RECON_DOMAINS_OLM_RESOLVE_PREDICATE_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "domains/olm/catalog/semver.h"
#include "domains/olm/resolve/constraint_cel.h"

namespace recon::olm {

struct Gvk {
  std::string group, version, kind;
  auto operator<=>(const Gvk&) const = default;
  // "<Kind> (<group>/<version>)", as the uniqueness messages write it.
  std::string Text() const;
};

// One bundle property as text: its type and its (compact) JSON value.
struct PropertyText {
  std::string type, value;
};

// What a predicate is matched against: a catalog entry or an installed CSV.
struct EntryFacts {
  std::string package;
  const Version* version = nullptr;
  const std::vector<Gvk>* provides = nullptr;
  const std::vector<std::string>* labels = nullptr;
  // Every property, for CEL rules. Null: CEL sees the olm.package, olm.gvk
  // and olm.label properties made from the fields above (what OLM infers for
  // a CSV that carries no properties annotation).
  const std::vector<PropertyText>* properties = nullptr;
};

struct Predicate {
  enum class Kind : uint8_t { kGvk, kPackage, kLabel, kAll, kAny, kNot, kCel };
  Kind kind = Kind::kGvk;
  Gvk gvk;
  std::string package, range_text, label, cel_rule, failure_message;
  std::optional<Range> range;
  std::vector<Predicate> children;
  std::shared_ptr<const cel::CelProgram> cel;  // kCel: the rule, compiled once

  bool Matches(const EntryFacts& e) const;
  // "providing an API with group: g, version: v, kind: k" etc.
  std::string Text() const;
};

// A dependency property (type + JSON value) → predicate. nullopt for types
// that are not dependencies; an error for a bad value (bad range, empty
// constraint, unknown constraint field, a CEL rule that does not compile or
// is not of type bool).
absl::StatusOr<std::optional<Predicate>> PredicateFromProperty(std::string_view type, std::string_view value);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_RESOLVE_PREDICATE_H_
