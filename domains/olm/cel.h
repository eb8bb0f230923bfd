// CEL rules of olm.constraint (reference §9.6), the way OLM runs them
// through cel-go: compiled once (parse + type check; the result must be
// bool) and evaluated per candidate bundle against its `properties`.
// The parts: cel_lexer.h, cel_parser.h (syntax), cel_check.h (types and
// the environment), cel_eval.h (runtime), cel_value.h (values).
#ifndef RECON_DOMAINS_OLM_CEL_H_
#define RECON_DOMAINS_OLM_CEL_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "domains/olm/cel_ast.h"
#include "domains/olm/cel_value.h"

namespace recon::olm {

class CelProgram {
 public:
  // Errors are why the constraint is rejected: a syntax or type error
  // ("ERROR: <input>:1:1: undeclared reference to 'x' (in container '')"),
  // or "cel expressions must have type Bool".
  static absl::StatusOr<CelProgram> Compile(std::string_view rule);

  // The rule's value with `properties` bound (a list of {type, value} maps).
  // An evaluation error, or a value that is not a bool, is an error; a
  // constraint treats both as "no match".
  absl::StatusOr<bool> Evaluate(const CelValue& properties) const;

 private:
  explicit CelProgram(std::shared_ptr<const CelExpr> root) : root_(std::move(root)) {}
  std::shared_ptr<const CelExpr> root_;  // shared: predicates are copied per catalog entry
};

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CEL_H_
