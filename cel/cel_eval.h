// Evaluation of a parsed and checked CEL rule with CEL's runtime semantics:
// && and || absorb an error on one side when the other side decides the
// result; `all`/`exists` absorb errors the same way; everything else is
// strict (an error operand gives an error). Integer arithmetic is checked
// for overflow; numbers compare and test equal across int, uint and double.
#ifndef RECON_CEL_CEL_EVAL_H_
#define RECON_CEL_CEL_EVAL_H_

#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "cel/cel_ast.h"
#include "cel/cel_env.h"
#include "cel/cel_value.h"

namespace recon::cel {

// Work units (nodes visited, plus list elements and string bytes / 8 built)
// one evaluation may spend. Comprehensions nest, so a short hostile rule
// could otherwise run for hours (inside the resolver, or on every write).
inline constexpr int64_t kCelEvalBudget = 1'000'000;

// A `matches` pattern compiled with RE2, the engine behind Go's regexp
// (and so cel-go's `matches`): same syntax, linear time. Never null; check
// ok() (a pattern that does not compile stays an evaluation error).
std::shared_ptr<const re2::RE2> CompileCelRegex(std::string_view pattern);

// The value of `e` with `vars` bound (names `env` declares). Errors are
// evaluation errors ("no such key: packageName", "division by zero", ...).
absl::StatusOr<CelValue> EvalCel(const CelExpr& e, const CelEnv& env, const CelActivation& vars,
                                 int64_t budget = kCelEvalBudget);

}  // namespace recon::cel

#endif  // RECON_CEL_CEL_EVAL_H_
