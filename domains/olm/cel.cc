#include "domains/olm/cel.h"

#include "base/strings.h"
#include "domains/olm/cel_check.h"
#include "domains/olm/cel_eval.h"
#include "domains/olm/cel_parser.h"

namespace recon::olm {
namespace {

// Compiles each literal `matches` pattern once, not per candidate bundle.
// Depth is bounded by the parser (CelExpr::height).
void CompileRegexes(CelExpr& e) {
  for (auto& a : e.args) CompileRegexes(*a);
  if (e.kind == CelExpr::Kind::kCall && e.name == "matches" && e.args.size() == 2 &&
      e.args[1]->kind == CelExpr::Kind::kLiteral && e.args[1]->literal.is(CelValue::Kind::kString)) {
    e.regex = CompileCelRegex(e.args[1]->literal.AsString());
  }
}

}  // namespace

absl::StatusOr<CelProgram> CelProgram::Compile(std::string_view rule) {
  auto root = ParseCel(rule);
  if (!root.ok()) return root.status();
  auto type = CheckCel(**root, rule);
  if (!type.ok()) return type.status();
  // cel-go compares the checked type with Bool exactly: a dyn result (say
  // `properties[0].value`) is rejected too.
  if (type->kind != CelType::Kind::kBool) {
    return absl::InvalidArgumentError("cel expressions must have type Bool");
  }
  CompileRegexes(**root);
  return CelProgram(std::shared_ptr<const CelExpr>(std::move(*root)));
}

absl::StatusOr<bool> CelProgram::Evaluate(const CelValue& properties) const {
  auto v = EvalCel(*root_, properties);
  if (!v.ok()) return v.status();
  if (!v->is(CelValue::Kind::kBool)) {
    return absl::InvalidArgumentError(
        StrCat("cel expression evaluated to ", CelKindName(v->kind()), ", not bool"));
  }
  return v->AsBool();
}

}  // namespace recon::olm
