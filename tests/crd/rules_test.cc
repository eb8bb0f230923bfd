// One case per schema rule crd::Registry::Admit enforces, each with the
// exact message a real kube-apiserver gives (testdata/rules.json, against
// testdata/widgets.yaml). Sources of the wording:
//  - k8s.io/kube-openapi pkg/validation/errors/schema.go (the "<path> in body
//    ..." details) and validate/slice_validator.go ("a[0]" item paths);
//  - apiextensions-apiserver pkg/apiserver/validation/validation.go (which
//    field.Error each OpenAPI code becomes: Required, NotSupported,
//    TooLongMaxLength, TooMany, TypeInvalid, Invalid);
//  - apiextensions-apiserver pkg/apiserver/schema/listtype/validation.go
//    (Duplicate value at the second appearance; map keys as a Go map);
//  - apiextensions-apiserver pkg/apiserver/schema/cel/validation.go
//    (Invalid value: "<schema type>": <message> | failed rule: <rule>;
//    fieldPath, reason, messageExpression; oldSelf rules only on update);
//  - k8s.io/apimachinery pkg/util/validation/field/errors.go (rendering).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "crd/registry.h"
#include "engine/json.h"

namespace recon::crd {
namespace {

std::string Read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::filesystem::path kData = std::filesystem::path(RECON_SOURCE_DIR) / "tests/crd/testdata";

Registry Widgets() {
  Registry r;
  auto s = r.AddYaml(Read(kData / "widgets.yaml"), "widgets.yaml");
  EXPECT_TRUE(s.ok()) << s;
  return r;
}

Json Widget(const Json& spec) {
  Json o = {{"apiVersion", "example.com/v1"}, {"kind", "Widget"}, {"metadata", {{"name", "w"}}}};
  if (!spec.is_discarded()) o["spec"] = spec;
  return o;
}

std::vector<std::string> Strings(const std::vector<FieldError>& errs) {
  std::vector<std::string> out;
  for (const auto& e : errs) out.push_back(e.ToString());
  return out;
}

TEST(CrdRules, EachRuleInTheServersWords) {
  Registry r = Widgets();
  const Kind* kind = r.Find("example.com", "v1", "Widget");
  ASSERT_NE(kind, nullptr);
  auto cases = engine::ParseJson(Read(kData / "rules.json"));
  ASSERT_TRUE(cases.ok()) << cases.status();
  ASSERT_GE(cases->size(), 30u);
  for (const Json& c : *cases) {
    Json obj = Widget(c["spec"]);
    Json old;
    if (c.contains("old")) old = Widget(c["old"]);
    auto errs = r.Admit(*kind, obj, c.contains("old") ? &old : nullptr);
    std::vector<std::string> want;
    for (const Json& e : c["errors"]) want.push_back(e.get<std::string>());
    EXPECT_EQ(Strings(errs), want) << c["name"].get<std::string>();
  }
}

TEST(CrdRules, ReasonsAreTheStatusCauseReasons) {
  Registry r = Widgets();
  const Kind& kind = *r.Find("example.com", "v1", "Widget");
  auto reason = [&](Json spec) {
    Json obj = Widget(spec);
    auto errs = r.Admit(kind, obj, nullptr);
    return errs.empty() ? std::string("none") : errs[0].reason;
  };
  EXPECT_EQ(reason(Json::object()), "FieldValueRequired");
  EXPECT_EQ(reason({{"name", 1}}), "FieldValueTypeInvalid");
  EXPECT_EQ(reason({{"name", "ab"}, {"level", "x"}}), "FieldValueNotSupported");
  EXPECT_EQ(reason({{"name", "abcdefg"}}), "FieldValueTooLong");
  EXPECT_EQ(reason({{"name", "ab"}, {"tags", {"a", "b", "c"}}}), "FieldValueTooMany");
  EXPECT_EQ(reason({{"name", "ab"}, {"tags", {"a", "a"}}}), "FieldValueDuplicate");
  EXPECT_EQ(reason({{"name", "ab"}, {"code", "12"}}), "FieldValueInvalid");
  EXPECT_EQ(reason({{"name", "ab"}, {"level", "bad"}}), "FieldValueForbidden");
}

TEST(CrdRules, PrunesUndeclaredFieldsButKeepsPreservedAndEmbedded) {
  Registry r = Widgets();
  const Kind& kind = *r.Find("example.com", "v1", "Widget");
  auto obj = engine::ParseJson(R"({"apiVersion":"example.com/v1","kind":"Widget",
    "metadata":{"name":"w","labels":{"a":"b"}},"extra":1,
    "spec":{"name":"ab","unknown":true,"blob":{"any":{"thing":[1]}},
            "template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"x":"y","z":1},"w":2}},
    "status":{"phase":"Ready","debug":"x"}})");
  ASSERT_TRUE(obj.ok());
  std::vector<std::string> dropped;
  EXPECT_TRUE(r.Admit(kind, *obj, nullptr, &dropped).empty());
  // What was pruned, by path, in document order (a server warns `unknown
  // field "<path>"` for each).
  EXPECT_EQ(dropped, (std::vector<std::string>{"extra", "spec.unknown", "spec.template.spec.z",
                                               "spec.template.w", "status.debug"}));
  EXPECT_FALSE(obj->contains("extra"));
  EXPECT_EQ((*obj)["metadata"]["labels"]["a"], "b");  // metadata is the caller's
  EXPECT_FALSE((*obj)["spec"].contains("unknown"));
  EXPECT_EQ((*obj)["spec"]["blob"]["any"]["thing"][0], 1);
  const Json& t = (*obj)["spec"]["template"];
  EXPECT_EQ(t["apiVersion"], "v1");
  EXPECT_EQ(t["kind"], "Pod");
  EXPECT_EQ(t["metadata"]["name"], "p");
  EXPECT_FALSE(t.contains("w"));
  EXPECT_FALSE(t["spec"].contains("z"));
  EXPECT_FALSE((*obj)["status"].contains("debug"));
}

TEST(CrdRules, AppliesDefaultsInsideExistingObjectsAndListItems) {
  Registry r = Widgets();
  const Kind& kind = *r.Find("example.com", "v1", "Widget");
  Json obj = Widget({{"name", "ab"}, {"ports", {{{"port", 80}}, {{"port", 81}, {"protocol", "UDP"}}}}});
  EXPECT_TRUE(r.Admit(kind, obj, nullptr).empty());
  EXPECT_EQ(obj["spec"]["mode"], "Auto");
  EXPECT_EQ(obj["spec"]["ports"][0]["protocol"], "TCP");
  EXPECT_EQ(obj["spec"]["ports"][1]["protocol"], "UDP");
  EXPECT_FALSE(obj.contains("status"));  // no default for status: absent objects stay absent
}

TEST(CrdRules, InvalidMessageListsTheErrorsLikeTheServer) {
  Registry r = Widgets();
  const Kind& kind = *r.Find("example.com", "v1", "Widget");
  Json one = Widget(Json::object());
  EXPECT_EQ(InvalidMessage(kind, "w", r.Admit(kind, one, nullptr)),
            "Widget.example.com \"w\" is invalid: spec.name: Required value");
  Json two = Widget({{"replicas", 0}});
  EXPECT_EQ(
      InvalidMessage(kind, "w", r.Admit(kind, two, nullptr)),
      "Widget.example.com \"w\" is invalid: [spec.name: Required value, spec.replicas: Invalid value: 0: "
      "spec.replicas in body should be greater than or equal to 1]");
}

TEST(CrdRules, KindsAndNames) {
  Registry r = Widgets();
  const Kind* k = r.FindByPlural("example.com", "v1", "widgets");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->kind, "Widget");
  EXPECT_EQ(k->singular, "widget");
  EXPECT_EQ(k->list_kind, "WidgetList");
  EXPECT_TRUE(k->namespaced);
  EXPECT_TRUE(k->status_subresource);
  EXPECT_TRUE(k->storage);
  EXPECT_EQ(r.Find("example.com", "v2", "Widget"), nullptr);
}

TEST(CrdRules, RuleThatDoesNotCompileIsAnErrorNamingWhereItIs) {
  std::string text = Read(kData / "widgets.yaml");
  const std::string from = "rule: self == oldSelf";
  size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, from.size(), "rule: self.frobnicate()");
  Registry r;
  auto s = r.AddYaml(text, "bad.yaml");
  EXPECT_EQ(
      std::string(s.message()),
      "bad.yaml: CustomResourceDefinition \"widgets.example.com\" version v1: "
      "openAPIV3Schema.properties[spec].properties[version].x-kubernetes-validations[0].rule: "
      "Invalid value: \"self.frobnicate()\": compilation failed: ERROR: <input>:1:6: undeclared reference "
      "to 'frobnicate' (in container '')");
  EXPECT_TRUE(r.kinds().empty());
}

TEST(CrdRules, PatternThatDoesNotCompileIsAnError) {
  std::string text = Read(kData / "widgets.yaml");
  const std::string from = "pattern: '^[a-z]$'";
  size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, from.size(), "pattern: '^[a-z$'");
  Registry r;
  auto s = r.AddYaml(text, "bad.yaml");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("openAPIV3Schema.properties[spec].properties[code].pattern: invalid pattern"),
            std::string::npos)
      << s;
}

}  // namespace
}  // namespace recon::crd
