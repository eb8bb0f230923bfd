#include "domains/olm/resolve/constraint_cel.h"

#include <optional>
#include <string>
#include <vector>

#include "base/strings.h"
#include "domains/olm/catalog/semver.h"

namespace recon::olm {
namespace {

using cel::CelType;
using cel::CelValue;
using VK = CelValue::Kind;

// Go's fmt.Sprint of a decoded value, which upstream feeds to ParseTolerant.
std::optional<std::string> SprintForSemver(const CelValue& v) {
  switch (v.kind()) {
    case VK::kString:
      return v.AsString();
    case VK::kInt:
      return std::to_string(v.AsInt());
    case VK::kUint:
      return std::to_string(v.AsUint());
    case VK::kDouble:
      return cel::GoFormatDouble(v.AsDouble());
    case VK::kBool:
      return std::string(v.AsBool() ? "true" : "false");
    default:
      return std::nullopt;  // "<nil>", "[...]", "map[...]": never a version
  }
}

absl::StatusOr<Version> SemverArg(const CelValue& v) {
  std::optional<std::string> text = SprintForSemver(v);
  if (text) {
    if (auto parsed = ParseVersionTolerant(*text); parsed.ok()) return parsed;
  }
  return absl::InvalidArgumentError(
      StrCat("unable to parse '", text.value_or(v.DebugString()), "' to semver format"));
}

absl::StatusOr<CelValue> SemverCompare(const std::vector<CelValue>& args) {
  auto a = SemverArg(args[0]);
  if (!a.ok()) return a.status();
  auto b = SemverArg(args[1]);
  if (!b.ok()) return b.status();
  return CelValue::Int(Compare(*a, *b));
}

}  // namespace

std::shared_ptr<const cel::CelEnv> ConstraintCelEnv() {
  static const auto* env = [] {
    auto e = std::make_shared<cel::CelEnv>();
    e->Declare("properties", CelType::List(CelType::Map(CelType::Of(CelType::Kind::kString),
                                                        CelType::Of(CelType::Kind::kDyn))));
    e->AddFunction({"semver_compare",
                    false,
                    {CelType::Of(CelType::Kind::kDyn), CelType::Of(CelType::Kind::kDyn)},
                    CelType::Of(CelType::Kind::kInt),
                    SemverCompare});
    return new std::shared_ptr<const cel::CelEnv>(std::move(e));
  }();
  return *env;
}

absl::StatusOr<cel::CelProgram> CompileConstraintCel(std::string_view rule) {
  return cel::CelProgram::Compile(rule, ConstraintCelEnv());
}

absl::StatusOr<bool> EvaluateConstraintCel(const cel::CelProgram& program, const cel::CelValue& properties) {
  return program.Evaluate({{"properties", &properties}});
}

}  // namespace recon::olm
