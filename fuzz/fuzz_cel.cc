// Fuzzes the CEL rules of olm.constraint (cel/cel.h): a rule comes
// from a catalog, which is outside input, and is compiled (lex, parse, type
// check) and then evaluated against every candidate bundle's properties.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cel/cel.h"
#include "cel/cel_parser.h"
#include "domains/olm/resolve/constraint_cel.h"
#include "engine/json.h"

namespace olm = recon::olm;
namespace cel = recon::cel;

namespace {

// A bundle with the usual property types plus odd values (numbers, nulls,
// nesting), so evaluation reaches maps, lists and every value kind.
const cel::CelValue& Properties() {
  static const cel::CelValue* props = [] {
    auto j = recon::engine::ParseJson(R"([
      {"type":"olm.package","value":{"packageName":"x","version":"1.0.1"}},
      {"type":"olm.gvk","value":{"group":"x.example.com","kind":"X","version":"v1"}},
      {"type":"olm.label","value":{"label":"certified"}},
      {"type":"olm.package.required","value":{"packageName":"y","versionRange":">=1.0.0 <2.0.0"}},
      {"type":"custom","value":{"n":3,"f":-0.5,"big":1e300,"b":true,"z":null,"l":[1,"a",[]],"m":{"k":{}}}},
      {"type":"scalar","value":"v1.2"}
    ])");
    if (!j.ok()) abort();
    return new cel::CelValue(cel::CelFromJson(*j));
  }();
  return *props;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view rule(reinterpret_cast<const char*>(data), size);
  (void)cel::ParseCel(rule);
  auto program = olm::CompileConstraintCel(rule);
  if (!program.ok()) return 0;
  // Evaluation is a pure function of the rule and the properties.
  auto first = olm::EvaluateConstraintCel(*program, Properties());
  auto second = olm::EvaluateConstraintCel(*program, Properties());
  if (first.ok() != second.ok()) abort();
  if (first.ok() && *first != *second) abort();
  if (!first.ok() && first.status().message() != second.status().message()) abort();
  return 0;
}
