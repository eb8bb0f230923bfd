// Static type check of a parsed CEL rule in OLM's environment (reference
// §9.6): the variable `properties: list(map(string, dyn))`, the standard
// operators and functions we evaluate, and `semver_compare(dyn, dyn) -> int`.
// Like cel-go it rejects undeclared names and operands no overload accepts;
// `dyn` (the property values) is accepted wherever a type is expected.
#ifndef RECON_DOMAINS_OLM_CEL_CHECK_H_
#define RECON_DOMAINS_OLM_CEL_CHECK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "domains/olm/cel_ast.h"

namespace recon::olm {

struct CelType {
  enum class Kind : uint8_t { kDyn, kNull, kBool, kInt, kUint, kDouble, kString, kList, kMap };
  Kind kind = Kind::kDyn;
  std::shared_ptr<const CelType> key, elem;  // list: elem; map: key and elem (the value type)

  static CelType Of(Kind k) { return CelType{k, nullptr, nullptr}; }
  static CelType List(CelType elem);
  static CelType Map(CelType key, CelType value);
  // "int", "list(string)", "map(string, dyn)".
  std::string Name() const;
  bool operator==(const CelType& o) const;
};

// The type of `e`; errors read "ERROR: <input>:1:5: undeclared reference to
// 'foo' (in container '')" and the like.
absl::StatusOr<CelType> CheckCel(const CelExpr& e, std::string_view source);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CEL_CHECK_H_
