#include "cel/cel.h"

#include "base/strings.h"
#include "cel/cel_eval.h"
#include "cel/cel_parser.h"

namespace recon::cel {
namespace {

// Compiles each literal `matches` pattern once, not per evaluation.
// Depth is bounded by the parser (CelExpr::height).
void CompileRegexes(CelExpr& e) {
  for (auto& a : e.args) CompileRegexes(*a);
  if (e.kind == CelExpr::Kind::kCall && e.name == "matches" && e.args.size() == 2 &&
      e.args[1]->kind == CelExpr::Kind::kLiteral && e.args[1]->literal.is(CelValue::Kind::kString)) {
    e.regex = CompileCelRegex(e.args[1]->literal.AsString());
  }
}

bool Reads(const CelExpr& e, std::string_view name) {
  if (e.kind == CelExpr::Kind::kIdent) return e.name == name;
  if (e.kind == CelExpr::Kind::kComprehension) {
    if (Reads(*e.args[0], name)) return true;
    if (e.name == name) return false;  // the iteration variable shadows it
    for (size_t i = 1; i < e.args.size(); ++i)
      if (Reads(*e.args[i], name)) return true;
    return false;
  }
  for (const auto& a : e.args)
    if (Reads(*a, name)) return true;
  return false;
}

}  // namespace

absl::StatusOr<CelProgram> CelProgram::CompileExpression(std::string_view expr,
                                                         std::shared_ptr<const CelEnv> env) {
  auto root = ParseCel(expr);
  if (!root.ok()) return root.status();
  auto type = CheckCel(**root, expr, *env);
  if (!type.ok()) return type.status();
  CompileRegexes(**root);
  return CelProgram(std::shared_ptr<const CelExpr>(std::move(*root)), std::move(env), std::move(*type));
}

absl::StatusOr<CelProgram> CelProgram::Compile(std::string_view rule, std::shared_ptr<const CelEnv> env) {
  auto program = CompileExpression(rule, std::move(env));
  if (!program.ok()) return program.status();
  // cel-go compares the checked type with Bool exactly: a dyn result (say
  // `properties[0].value`) is rejected too.
  if (program->type_.kind != CelType::Kind::kBool) {
    return absl::InvalidArgumentError("cel expressions must have type Bool");
  }
  return program;
}

absl::StatusOr<CelValue> CelProgram::EvaluateValue(const CelActivation& vars) const {
  return EvalCel(*root_, *env_, vars);
}

absl::StatusOr<bool> CelProgram::Evaluate(const CelActivation& vars) const {
  auto v = EvaluateValue(vars);
  if (!v.ok()) return v.status();
  if (!v->is(CelValue::Kind::kBool)) {
    return absl::InvalidArgumentError(
        StrCat("cel expression evaluated to ", CelKindName(v->kind()), ", not bool"));
  }
  return v->AsBool();
}

bool CelProgram::References(std::string_view name) const { return Reads(*root_, name); }

}  // namespace recon::cel
