// A CEL rule the way cel-go runs one: compiled once (parse + type check in
// an environment, cel_env.h) and evaluated many times with its variables
// bound. olm.constraint rules (domains/olm/resolve/constraint_cel.h) and CRD
// x-kubernetes-validations rules (crd/) use it with their own environments.
// The parts: cel_lexer.h, cel_parser.h (syntax), cel_check.h (types),
// cel_env.h (variables and extension functions), cel_eval.h (runtime),
// cel_value.h (values), cel_strings.h (the cel-go strings extension).
#ifndef RECON_CEL_CEL_H_
#define RECON_CEL_CEL_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "cel/cel_ast.h"
#include "cel/cel_check.h"
#include "cel/cel_env.h"
#include "cel/cel_value.h"

namespace recon::cel {

class CelProgram {
 public:
  // A rule whose checked type must be bool. Errors: a syntax or type error
  // ("ERROR: <input>:1:1: undeclared reference to 'x' (in container '')"),
  // or "cel expressions must have type Bool".
  static absl::StatusOr<CelProgram> Compile(std::string_view rule, std::shared_ptr<const CelEnv> env);
  // An expression of any type (a messageExpression, say).
  static absl::StatusOr<CelProgram> CompileExpression(std::string_view expr,
                                                      std::shared_ptr<const CelEnv> env);

  // The rule's value with `vars` bound. An evaluation error, or a value that
  // is not a bool, is an error.
  absl::StatusOr<bool> Evaluate(const CelActivation& vars) const;
  absl::StatusOr<CelValue> EvaluateValue(const CelActivation& vars) const;

  // Does the expression read the variable `name` (outside a comprehension
  // that shadows it)? Kubernetes runs a rule that reads oldSelf only on updates.
  bool References(std::string_view name) const;
  const CelType& type() const { return type_; }

 private:
  CelProgram(std::shared_ptr<const CelExpr> root, std::shared_ptr<const CelEnv> env, CelType type)
      : root_(std::move(root)), env_(std::move(env)), type_(std::move(type)) {}
  std::shared_ptr<const CelExpr> root_;  // shared: predicates are copied per catalog entry
  std::shared_ptr<const CelEnv> env_;
  CelType type_;
};

}  // namespace recon::cel

#endif  // RECON_CEL_CEL_H_
