// recon_cel on its own: an environment's declared variables and extension
// functions (what olm and crd each register), and the cel-go strings
// extension the Kubernetes validation rules use.
#include <gtest/gtest.h>

#include <string>

#include "base/strings.h"
#include "cel/cel.h"
#include "cel/cel_strings.h"

namespace recon::cel {
namespace {

using K = CelType::Kind;

std::shared_ptr<const CelEnv> Env() {
  auto env = std::make_shared<CelEnv>();
  env->Declare("self", CelType::Of(K::kString)).Declare("n", CelType::Of(K::kInt));
  env->AddFunction({"twice",
                    false,
                    {CelType::Of(K::kInt)},
                    CelType::Of(K::kInt),
                    [](const std::vector<CelValue>& a) -> absl::StatusOr<CelValue> {
                      return CelValue::Int(2 * a[0].AsInt());
                    }});
  AddStringsExtension(*env);
  return env;
}

std::string Outcome(std::string_view rule, std::string_view self, int64_t n = 1) {
  auto p = CelProgram::Compile(rule, Env());
  if (!p.ok()) return StrCat("compile: ", Sv(p.status().message()));
  CelValue s = CelValue::String(std::string(self)), i = CelValue::Int(n);
  auto r = p->Evaluate({{"self", &s}, {"n", &i}});
  if (!r.ok()) return StrCat("error: ", Sv(r.status().message()));
  return *r ? "true" : "false";
}

TEST(CelEnv, DeclaredVariablesAndExtensionFunctions) {
  EXPECT_EQ(Outcome("twice(n) == 4", "", 2), "true");
  EXPECT_EQ(Outcome("self == 'a'", "a"), "true");
  EXPECT_EQ(Outcome("properties == 1", ""),
            "compile: ERROR: <input>:1:1: undeclared reference to 'properties' (in container '')");
  EXPECT_EQ(Outcome("semver_compare(self, self) == 0", ""),
            "compile: ERROR: <input>:1:1: undeclared reference to 'semver_compare' (in container '')");
  EXPECT_EQ(Outcome("twice(self) == 2", ""),
            "compile: ERROR: <input>:1:1: found no matching overload for 'twice' applied to '(string)'");
}

TEST(CelEnv, UnboundVariableIsAnEvaluationError) {
  auto env = std::make_shared<CelEnv>();
  env->Declare("self", CelType::Of(K::kInt)).Declare("oldSelf", CelType::Of(K::kInt));
  auto p = CelProgram::Compile("self == oldSelf", env);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->References("oldSelf"));
  EXPECT_FALSE(CelProgram::Compile("[1].all(oldSelf, oldSelf == self)", env)->References("oldSelf"));
  CelValue one = CelValue::Int(1);
  EXPECT_FALSE(p->Evaluate({{"self", &one}}).ok());
  EXPECT_TRUE(*p->Evaluate({{"self", &one}, {"oldSelf", &one}}));
}

TEST(CelStrings, TheKubernetesRulesFunctions) {
  EXPECT_EQ(Outcome("self.split('.') == ['1', '02', '3']", "1.02.3"), "true");
  EXPECT_EQ(Outcome("!self.split('.').exists(x, x.matches('^0[0-9]+$'))", "1.02.3"), "false");
  EXPECT_EQ(Outcome("!self.split('.').exists(x, x.matches('^0[0-9]+$'))", "1.2.0"), "true");
  EXPECT_EQ(Outcome("self.split('') == ['a', 'é']", "aé"), "true");
  EXPECT_EQ(Outcome("self.split('.').join('-') == '1-2'", "1.2"), "true");
  EXPECT_EQ(Outcome("self.lowerAscii() == 'abc' && self.upperAscii() == 'ABC'", "aBc"), "true");
  EXPECT_EQ(Outcome("self.trim() == 'x'", "  x \n"), "true");
  EXPECT_EQ(Outcome("self.replace('a', 'bb') == 'bbcbb'", "aca"), "true");
  EXPECT_EQ(Outcome("self.indexOf('c') == 2 && self.indexOf('z') == -1", "éac"), "true");
  EXPECT_EQ(Outcome("has(self.x)", "s"),
            "compile: ERROR: <input>:1:1: type 'string' does not support field selection");
}

}  // namespace
}  // namespace recon::cel
