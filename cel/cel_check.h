// Static type check of a parsed CEL rule in an environment (cel_env.h):
// its declared variables and extension functions, plus the standard
// operators and functions we evaluate. Like cel-go it rejects undeclared
// names and operands no overload accepts; `dyn` is accepted wherever a type
// is expected.
#ifndef RECON_CEL_CEL_CHECK_H_
#define RECON_CEL_CEL_CHECK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cel/cel_ast.h"

namespace recon::cel {

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

class CelEnv;

// The type of `e`; errors read "ERROR: <input>:1:5: undeclared reference to
// 'foo' (in container '')" and the like.
absl::StatusOr<CelType> CheckCel(const CelExpr& e, std::string_view source, const CelEnv& env);

}  // namespace recon::cel

#endif  // RECON_CEL_CEL_CHECK_H_
