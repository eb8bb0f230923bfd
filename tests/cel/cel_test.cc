// CEL in olm.constraint (reference §9.6): the parser, the type check that
// rejects non-bool rules, evaluation with CEL's error rules, semver_compare,
// the predicate built from a constraint, and the resolver picking (or failing
// to find) a bundle through a CEL-constrained dependency.
#include "cel/cel.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "base/strings.h"
#include "cel/cel_eval.h"
#include "cel/cel_parser.h"
#include "domains/olm/resolve/catalog_index.h"
#include "domains/olm/resolve/constraint_cel.h"
#include "domains/olm/resolve/predicate.h"
#include "domains/olm/resolve/resolver.h"
#include "engine/json.h"

namespace recon::olm {
namespace {

using namespace recon::cel;  // NOLINT: the CEL library under test

// The properties of a bundle as OLM hands them to CEL (values JSON-decoded).
CelValue Props(std::string_view json_list) {
  auto j = engine::ParseJson(json_list);
  EXPECT_TRUE(j.ok()) << json_list;
  return CelFromJson(*j);
}

const char* kBundle = R"([
  {"type":"olm.package","value":{"packageName":"x","version":"1.0.1"}},
  {"type":"olm.gvk","value":{"group":"x.example.com","kind":"X","version":"v1"}},
  {"type":"olm.label","value":{"label":"certified"}},
  {"type":"custom","value":{"replicas":3,"tags":["a","b"],"zone":"eu","nested":{"b":1,"a":2}}}
])";

// "ok: <value>" or "error: <message>" of a rule: compiled when it has type
// bool, otherwise parsed and evaluated directly (to test non-bool values).
std::string Eval(std::string_view rule, std::string_view props = kBundle) {
  auto program = CompileConstraintCel(rule);
  if (program.ok()) {
    auto r = EvaluateConstraintCel(*program, Props(props));
    if (!r.ok()) return StrCat("error: ", Sv(r.status().message()));
    return *r ? "ok: true" : "ok: false";
  }
  if (Sv(program.status().message()) != "cel expressions must have type Bool") {
    return StrCat("compile: ", Sv(program.status().message()));
  }
  auto e = ParseCel(rule);
  CelValue bound = Props(props);
  auto v = EvalCel(**e, *ConstraintCelEnv(), {{"properties", &bound}});
  if (!v.ok()) return StrCat("error: ", Sv(v.status().message()));
  return StrCat("ok: ", v->DebugString());
}

std::string CompileError(std::string_view rule) {
  auto p = CompileConstraintCel(rule);
  return p.ok() ? "ok" : std::string(Sv(p.status().message()));
}

TEST(CelParser, PrecedenceAndAssociativity) {
  EXPECT_EQ(Eval("1 + 2 * 3 == 7"), "ok: true");
  EXPECT_EQ(Eval("(1 + 2) * 3 == 9"), "ok: true");
  EXPECT_EQ(Eval("10 - 4 - 3 == 3"), "ok: true");  // left-associative
  EXPECT_EQ(Eval("7 / 2 * 2 == 6 && 7 % 4 == 3"), "ok: true");
  EXPECT_EQ(Eval("true || false && false"), "ok: true");               // && binds tighter
  EXPECT_EQ(Eval("1 < 2 == true"), "ok: true");                        // relations chain left to right
  EXPECT_EQ(Eval("false ? false : true ? true : false"), "ok: true");  // ?: nests to the right
  EXPECT_EQ(Eval("!!true && !false && -(-1) == 1 && --1 == 1"), "ok: true");
  EXPECT_EQ(Eval("2 in [1, 2, 3] && !(4 in [1, 2, 3]) && 'a' in {'a': 1}"), "ok: true");
  EXPECT_EQ(Eval("[1, 2,][1] == 2 && {'k': 'v',}.k == 'v'"), "ok: true");  // trailing commas
  EXPECT_EQ(Eval("// a comment\n  .properties.size() == 4"), "ok: true");
}

TEST(CelParser, Literals) {
  EXPECT_EQ(Eval("1u + 2u == 3u"), "ok: true");
  EXPECT_EQ(Eval("0x1F == 31 && 0xFFu == 255u"), "ok: true");
  EXPECT_EQ(Eval("1.5e3 == 1500.0 && .5 == 0.5 && 2e-1 == 0.2"), "ok: true");
  EXPECT_EQ(Eval("-9223372036854775808 < 0"), "ok: true");
  EXPECT_EQ(Eval("null == null && true != false"), "ok: true");
  EXPECT_EQ(Eval(R"('\x41\u00e9\101\n' == "Aé" + 'A' + '\n')"), "ok: true");
  EXPECT_EQ(Eval(R"(r'\n'.size() == 2 && R"\t".size() == 2)"), "ok: true");  // raw: no escapes
  EXPECT_EQ(Eval("'''two\nlines''' == \"two\\nlines\""), "ok: true");
  EXPECT_EQ(Eval(R"("it's" == 'it\'s' && '\\' .size() == 1)"), "ok: true");
  EXPECT_EQ(Eval(R"('\U0001F600'.size() == 1)"), "ok: true");  // size counts code points
}

TEST(CelParser, SyntaxErrors) {
  EXPECT_EQ(CompileError(""), "ERROR: <input>:1:1: Syntax error: unexpected end of expression");
  EXPECT_EQ(CompileError("1 +"), "ERROR: <input>:1:4: Syntax error: unexpected end of expression");
  EXPECT_EQ(CompileError("(1 == 1"),
            "ERROR: <input>:1:8: Syntax error: expected ')', found end of expression");
  EXPECT_EQ(CompileError("a = b"), "ERROR: <input>:1:3: Syntax error: token recognition error at: '='");
  EXPECT_EQ(CompileError("true\n && 'x"), "ERROR: <input>:2:5: Syntax error: unterminated string literal");
  EXPECT_EQ(CompileError("properties.exists(p.x, true)"),
            "ERROR: <input>:1:21: Syntax error: argument must be a simple name");
  EXPECT_EQ(CompileError("has(properties)"),
            "ERROR: <input>:1:1: Syntax error: invalid argument to has() macro");
  EXPECT_EQ(CompileError("if == 1"), "ERROR: <input>:1:1: Syntax error: reserved identifier: if");
  EXPECT_EQ(CompileError("b'x' == b'x'"),
            "ERROR: <input>:1:1: Syntax error: bytes literals are not supported");
  EXPECT_EQ(CompileError("9223372036854775808 > 0"), "ERROR: <input>:1:1: Syntax error: invalid int literal");
  EXPECT_EQ(CompileError("'\\q' == ''"), "ERROR: <input>:1:2: Syntax error: invalid escape sequence");
  EXPECT_EQ(CompileError("1 == 1 )"), "ERROR: <input>:1:8: Syntax error: unexpected ')'");
}

TEST(CelParser, NestingIsBounded) {
  std::string parens = std::string(300, '(') + "true" + std::string(300, ')');
  EXPECT_EQ(CompileError(parens), "ERROR: <input>:1:251: Syntax error: expression nested too deeply");
  std::string sum = "0";
  for (int i = 0; i < 400; ++i) sum += " + 1";
  EXPECT_NE(CompileError(sum + " == 400").find("nested more than 250 levels"), std::string::npos);
  // Long && / || chains are balanced, so they stay shallow.
  std::string chain = "true";
  for (int i = 0; i < 5000; ++i) chain += " && true";
  EXPECT_EQ(Eval(chain), "ok: true");
}

TEST(CelCheck, ResultMustBeBool) {
  for (const char* rule :
       {"1", "'s'", "[true]", "{1: true}", "1 + 2", "properties", "properties[0].value", "null", "2.5",
        "true ? 1 : 2", "properties.map(p, p.type == 'x')", "semver_compare('1.0.0', '1.0.0')"}) {
    EXPECT_EQ(CompileError(rule), "cel expressions must have type Bool") << rule;
  }
  for (const char* rule : {"true", "1 == 1", "properties.size() > 0", "size(properties) > 0",
                           "properties.exists(p, p.value)", "properties[0].value == 1",
                           "has(properties[0].value.x)", "properties.all(p, p.type.startsWith('olm.'))",
                           "!!true", "properties.exists_one(p, p.type == 'x')", "'a' < 'b'", "1 < 2.0"}) {
    EXPECT_EQ(CompileError(rule), "ok") << rule;
  }
}

TEST(CelCheck, UndeclaredAndMismatchedOverloads) {
  EXPECT_EQ(CompileError("foo"), "ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')");
  EXPECT_EQ(
      CompileError("properties.exists(p, p.type == 'olm.test' && (doesnt_exist(p.value, '1.0.0') == 0))"),
      "ERROR: <input>:1:47: undeclared reference to 'doesnt_exist' (in container '')");
  // The strings extension library is not in OLM's environment.
  EXPECT_EQ(CompileError("'abc'.lowerAscii() == 'abc'"),
            "ERROR: <input>:1:7: undeclared reference to 'lowerAscii' (in container '')");
  EXPECT_EQ(CompileError("1 == 'a'"),
            "ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, string)'");
  EXPECT_EQ(CompileError("'a' + 1 == 'a1'"),
            "ERROR: <input>:1:5: found no matching overload for '_+_' applied to '(string, int)'");
  EXPECT_EQ(CompileError("1 && true"),
            "ERROR: <input>:1:3: found no matching overload for '_&&_' applied to '(int, bool)'");
  EXPECT_EQ(CompileError("properties.exists(p, 1)"),
            "ERROR: <input>:1:22: predicate of 'exists' must be bool, found 'int'");
  EXPECT_NE(CompileError("1.exists(x, true)").find("'int' cannot be range of a comprehension"),
            std::string::npos);
  EXPECT_EQ(CompileError("properties.foo"),
            "ERROR: <input>:1:12: type 'list(map(string, dyn))' does not "
            "support field selection");
  EXPECT_EQ(CompileError("properties['a'] == 1"),
            "ERROR: <input>:1:11: found no matching overload for '_[_]' applied to '(list(map(string, dyn)), "
            "string)'");
  // The iteration variable is only in scope inside its macro.
  EXPECT_EQ(CompileError("properties.exists(p, true) && p.type == 'x'"),
            "ERROR: <input>:1:31: undeclared reference to 'p' (in container '')");
}

TEST(CelEval, TheReferenceExample) {
  const char* rule =
      "properties.exists(p, p.type == 'olm.package' && p.value.packageName == 'x' && "
      "semver_compare(p.value.version, '1.0.1') == 0)";
  EXPECT_EQ(Eval(rule), "ok: true");
  EXPECT_EQ(Eval(rule, R"([{"type":"olm.package","value":{"packageName":"x","version":"1.0.2"}}])"),
            "ok: false");
  EXPECT_EQ(Eval(rule, R"([{"type":"olm.package","value":{"packageName":"y","version":"1.0.1"}}])"),
            "ok: false");
  EXPECT_EQ(Eval(rule, "[]"), "ok: false");
}

TEST(CelEval, SemverCompare) {
  EXPECT_EQ(Eval("semver_compare('1.0.0', '1.0.1') == -1"), "ok: true");
  EXPECT_EQ(Eval("semver_compare('1.0.1', '1.0.0') == 1"), "ok: true");
  EXPECT_EQ(Eval("semver_compare('v1.2', '1.2.0') == 0"), "ok: true");  // ParseTolerant
  EXPECT_EQ(Eval("semver_compare('1.0.0+build.1', '1.0.0') == 0"), "ok: true");
  EXPECT_EQ(Eval("semver_compare('1.0.0-rc.1', '1.0.0') < 0"), "ok: true");
  // Non-strings are printed the way Go's fmt.Sprint does first.
  EXPECT_EQ(Eval("semver_compare(2, '2.0.0') == 0 && semver_compare(1.5, '1.5.0') == 0"), "ok: true");
  EXPECT_EQ(Eval("semver_compare('bad', '1.0.0') == 0"), "error: unable to parse 'bad' to semver format");
  EXPECT_EQ(Eval("semver_compare(true, '1.0.0') == 0"), "error: unable to parse 'true' to semver format");
  // The upstream CEL library test (operator-framework/api constraints/cel_test.go).
  const char* props = R"([{"type":"olm.test","value":"1.0.0"}])";
  EXPECT_EQ(
      Eval("properties.exists(p, p.type == 'olm.test' && (semver_compare(p.value, '1.0.0') == 0))", props),
      "ok: true");
  EXPECT_EQ(
      Eval("properties.exists(p, p.type == 'olm.test' && (semver_compare(p.value, '1.0.1') == 0))", props),
      "ok: false");
  EXPECT_EQ(
      Eval("properties.exists(p, p.type == 'olm.test' && (semver_compare(p.value, '1.0.0') < 0))", props),
      "ok: false");
}

TEST(CelEval, ErrorsAreAbsorbedByDecidingSides) {
  // && / ||: the deciding value on either side wins over an error.
  EXPECT_EQ(Eval("properties[9].type == 'a' || true"), "ok: true");
  EXPECT_EQ(Eval("true || properties[9].type == 'a'"), "ok: true");
  EXPECT_EQ(Eval("1 / 0 == 1 && false"), "ok: false");
  EXPECT_EQ(Eval("false && 1 / 0 == 1"), "ok: false");
  EXPECT_EQ(Eval("1 / 0 == 1 || false"), "error: division by zero");
  EXPECT_EQ(Eval("true && properties[9].type == 'a'"), "error: index out of range: 9");
  // exists / all absorb errors of other elements the same way.
  EXPECT_EQ(Eval("[0, 1].exists(x, 1 / x == 1)"), "ok: true");
  EXPECT_EQ(Eval("[0, 1].all(x, 1 / x == 5)"), "ok: false");
  EXPECT_EQ(Eval("[0].all(x, 1 / x == 1)"), "error: division by zero");
  EXPECT_EQ(Eval("[1, 0].exists(x, 1 / x == 5)"), "error: division by zero");
  // A property without the field: an error for that element only.
  EXPECT_EQ(Eval("properties.exists(p, p.value.zone == 'eu')"), "ok: true");
  EXPECT_EQ(Eval("properties.all(p, p.value.zone == 'us')"), "ok: false");
  EXPECT_EQ(Eval("properties.all(p, p.value.zone == 'eu')"), "error: no such key: zone");
  EXPECT_EQ(Eval("properties.all(p, p.value.packageName != 'nope')"), "error: no such key: packageName");
  // Strict everywhere else.
  EXPECT_EQ(Eval("properties.exists_one(p, p.value.zone == 'eu')"), "error: no such key: zone");
  EXPECT_EQ(Eval("(1 / 0 == 1) == false"), "error: division by zero");
  EXPECT_EQ(Eval("1 / 0 == 1 ? true : true"), "error: division by zero");
}

TEST(CelEval, ValuesFromJsonAndMacros) {
  // JSON numbers are doubles (Go's encoding/json); equality crosses numeric kinds.
  EXPECT_EQ(Eval("properties[3].value.replicas == 3 && properties[3].value.replicas == 3u"), "ok: true");
  EXPECT_EQ(Eval("properties[3].value.replicas + 1 == 4"), "error: no such overload: _+_");
  EXPECT_EQ(Eval("properties[3].value.replicas + 1.0 == 4.0"), "ok: true");
  EXPECT_EQ(Eval("properties[3].value.replicas > 2 && properties[3].value.replicas < 3.5"), "ok: true");
  EXPECT_EQ(Eval("properties[3].value.tags[1]"), "ok: \"b\"");
  EXPECT_EQ(Eval("properties[3].value.tags[1.0] == 'b'"), "ok: true");
  EXPECT_EQ(Eval("properties[3].value.tags[2]"), "error: index out of range: 2");
  EXPECT_EQ(Eval("properties[3].value['zone']"), "ok: \"eu\"");
  EXPECT_EQ(Eval("properties[3].value.nope"), "error: no such key: nope");
  EXPECT_EQ(Eval("has(properties[3].value.zone) && !has(properties[3].value.nope)"), "ok: true");
  EXPECT_EQ(Eval("properties.map(p, p.type)"),
            "ok: [\"olm.package\", \"olm.gvk\", \"olm.label\", \"custom\"]");
  EXPECT_EQ(Eval("properties.filter(p, p.type.startsWith('olm.')).size() == 3"), "ok: true");
  EXPECT_EQ(Eval("properties.map(p, p.type.startsWith('olm.'), p.type.size())"), "ok: [11, 7, 9]");
  EXPECT_EQ(Eval("properties.exists_one(p, p.type == 'olm.gvk')"), "ok: true");
  EXPECT_EQ(Eval("[1, 1].exists_one(x, x == 1)"), "ok: false");
  // Maps keep insertion order (JSON: document order), so iteration is stable.
  EXPECT_EQ(Eval("properties[3].value.nested.map(k, k)"), "ok: [\"b\", \"a\"]");
  EXPECT_EQ(Eval("{'z': 1, 'a': 2}.map(k, k)"), "ok: [\"z\", \"a\"]");
  EXPECT_EQ(Eval("{'a': 1, 'a': 2}.size() == 1"), "error: Failed with repeated key: \"a\"");
  EXPECT_EQ(
      Eval("{3: 'x'}[properties[3].value.replicas] == 'x' && properties[3].value.replicas in {3u: 'x'}"),
      "ok: true");
  EXPECT_EQ(Eval("[[1], [2]] + [[3]] == [[1], [2], [3]] && [1, 2] != [2, 1]"), "ok: true");
  EXPECT_EQ(
      Eval("{'n': [properties[3].value.replicas]} == {'n': [3]} && properties[3].value.tags == ['a', 'b']"),
      "ok: true");
}

TEST(CelEval, Functions) {
  EXPECT_EQ(Eval("'abc'.contains('b') && 'abc'.startsWith('ab') && 'abc'.endsWith('bc')"), "ok: true");
  EXPECT_EQ(Eval("'abc'.endsWith('abcd') || ''.contains('x')"), "ok: false");
  EXPECT_EQ(Eval("size('héllo') == 5 && 'héllo'.size() == 5 && size({'a': 1}) == 1"), "ok: true");
  EXPECT_EQ(Eval("int('42') == 42 && int(2.9) == 2 && int(-2.9) == -2 && int(7u) == 7"), "ok: true");
  EXPECT_EQ(Eval("int('4x') == 4"), "error: cannot convert '4x' to int");
  EXPECT_EQ(Eval("int(1e19) == 0"), "error: integer overflow");
  EXPECT_EQ(Eval("uint(-1) == 0u"), "error: unsigned integer overflow");
  EXPECT_EQ(Eval("double('2.5') == 2.5 && double(3) == 3.0 && double('1e3') == 1000.0"), "ok: true");
  EXPECT_EQ(Eval("string(1.5)"), "ok: \"1.5\"");
  EXPECT_EQ(Eval("string(1e6) == '1e+06' && string(123456.0) == '123456' && string(0.00001) == '1e-05'"),
            "ok: true");
  EXPECT_EQ(Eval("string(-7) == '-7' && string(7u) == '7' && string(true) == 'true'"), "ok: true");
  EXPECT_EQ(Eval("string(properties[3].value.replicas) == '3'"), "ok: true");
  EXPECT_EQ(Eval("size(properties[0].value.version) == 5"), "ok: true");
  EXPECT_EQ(Eval("size(properties[3].value.replicas) == 1"), "error: no such overload: size");
}

// `matches` is Go's regexp.MatchString (RE2 syntax, unanchored), in both
// the receiver and the global form; a pattern that does not compile is an
// evaluation error (no match), not a rejected constraint.
TEST(CelEval, Matches) {
  // CEL string literals need `\\` for a regex's backslash: raw strings keep them readable here.
  EXPECT_EQ(Eval(R"('olm.package'.matches('^olm\\.') && matches('abc', 'b') && 'abc'.matches(''))"),
            "ok: true");
  EXPECT_EQ(Eval("'abc'.matches('^b') || 'abc'.matches('c$x')"), "ok: false");
  EXPECT_EQ(Eval(R"('héllo'.matches('^h.llo$') && 'v1.2.3-rc.1'.matches('^v[0-9]+(\\.[0-9]+){2}(-.*)?$'))"),
            "ok: true");
  EXPECT_EQ(
      Eval(R"(properties.exists(p, p.type == 'olm.gvk' && p.value.group.matches('\\.example\\.com$')))"),
      "ok: true");
  // A pattern from the bundle itself, compiled at evaluation.
  EXPECT_EQ(Eval("properties.exists(p, p.type == 'custom' && 'eu-west'.matches(p.value.zone))"), "ok: true");
  EXPECT_EQ(CompileError("'a'.matches('(')"), "ok");
  std::string bad = Eval("'a'.matches('(')");
  EXPECT_EQ(bad.rfind("error: invalid regular expression '(': ", 0), 0u) << bad;
  bad = Eval("properties.exists(p, p.type == 'custom' && 'x'.matches(p.value.zone + '['))");
  EXPECT_EQ(bad.rfind("error: invalid regular expression 'eu[': ", 0), 0u) << bad;
  // An error on one side of || is absorbed when the other side is true.
  EXPECT_EQ(Eval("'a'.matches('(') || true"), "ok: true");
  EXPECT_EQ(CompileError("1.matches('a')"),
            "ERROR: <input>:1:3: found no matching overload for 'matches' applied to '(int, string)'");
  EXPECT_EQ(CompileError("matches('a')"),
            "ERROR: <input>:1:1: found no matching overload for 'matches' applied to '(string)'");
}

TEST(CelEval, ArithmeticIsChecked) {
  EXPECT_EQ(Eval("9223372036854775807 + 1 > 0"), "error: integer overflow");
  EXPECT_EQ(Eval("-9223372036854775808 / -1 > 0"), "error: integer overflow");
  EXPECT_EQ(Eval("0u - 1u > 0u"), "error: integer overflow");
  EXPECT_EQ(Eval("5 % 0 == 0"), "error: modulus by zero");
  EXPECT_EQ(Eval("-7 / 2 == -3 && -7 % 2 == -1"), "ok: true");  // truncated, like Go
  EXPECT_EQ(Eval("1.0 / 0.0 > 1e308"), "ok: true");
  EXPECT_EQ(Eval("'a' + 'b' == 'ab'"), "ok: true");
}

TEST(CelEval, CostIsBounded) {
  // Nested comprehensions multiply: 100^4 iterations would take minutes.
  std::string hundred = "[0";
  for (int i = 1; i < 100; ++i) hundred += ",0";
  hundred += "]";
  std::string rule =
      hundred + ".all(a, " + hundred + ".all(b, " + hundred + ".all(c, " + hundred + ".all(d, d == 0))))";
  EXPECT_EQ(Eval(rule), "error: evaluation cost limit exceeded");
}

TEST(CelPredicate, ConstraintCompilesOnceAndMatchesPerBundle) {
  const char* value =
      R"json({"failureMessage":"needs x 1.0.1","cel":{"rule":"properties.exists(p, p.type == 'olm.package' && p.value.packageName == 'x' && semver_compare(p.value.version, '1.0.1') == 0)"}})json";
  auto p = PredicateFromProperty("olm.constraint", value);
  ASSERT_TRUE(p.ok() && *p) << p.status();
  EXPECT_EQ(
      (*p)->Text(),
      "with constraint: \"properties.exists(p, p.type == 'olm.package' && p.value.packageName == 'x' && "
      "semver_compare(p.value.version, '1.0.1') == 0)\" and message: \"needs x 1.0.1\"");
  std::vector<PropertyText> props = {{"olm.package", R"({"packageName":"x","version":"1.0.1"})"}};
  EntryFacts facts;
  facts.properties = &props;
  EXPECT_TRUE((*p)->Matches(facts));
  props[0].value = R"({"packageName":"x","version":"1.0.2"})";
  EXPECT_FALSE((*p)->Matches(facts));
  props[0].value = "not json";  // an empty map in its place: "no such key", no match
  EXPECT_FALSE((*p)->Matches(facts));
  // Without a property list (an installed CSV without the annotation), CEL
  // sees the olm.package property made from the package and version.
  Version v = *ParseVersion("1.0.1");
  EXPECT_TRUE((*p)->Matches({"x", &v, nullptr, nullptr}));
  EXPECT_FALSE((*p)->Matches({"y", &v, nullptr, nullptr}));
  // Inside a compound constraint, against the same bundle.
  auto all = PredicateFromProperty(
      "olm.constraint",
      R"json({"all":{"constraints":[{"cel":{"rule":"properties.exists(p, p.type == 'olm.gvk' && p.value.kind == 'K')"}},{"package":{"packageName":"x","versionRange":">=1.0.0"}}]}})json");
  ASSERT_TRUE(all.ok() && *all) << all.status();
  std::vector<Gvk> gvks{{"g", "v1", "K"}}, none;
  EXPECT_TRUE((*all)->Matches({"x", &v, &gvks, nullptr}));
  EXPECT_FALSE((*all)->Matches({"x", &v, &none, nullptr}));
}

TEST(CelPredicate, BadRulesRejectTheConstraint) {
  auto msg = [](std::string_view rule) {
    auto p = PredicateFromProperty("olm.constraint", StrCat(R"({"cel":{"rule":")", rule, R"("}})"));
    return p.ok() ? std::string("ok") : std::string(Sv(p.status().message()));
  };
  EXPECT_EQ(msg("1"), "convert olm.constraint to resolver predicate: cel expressions must have type Bool");
  EXPECT_EQ(msg("properties"),
            "convert olm.constraint to resolver predicate: cel expressions must have type Bool");
  EXPECT_EQ(
      msg("foo == 1"),
      "convert olm.constraint to resolver predicate: ERROR: <input>:1:1: undeclared reference to 'foo' (in "
      "container '')");
  EXPECT_EQ(
      msg(""),
      "convert olm.constraint to resolver predicate: ERROR: <input>:1:1: Syntax error: unexpected end of "
      "expression");
  EXPECT_EQ(msg("true"), "ok");
}

// The fuzz target's seed rules stay valid rules (they are its only seeds).
TEST(CelFuzzSeeds, AllCompile) {
  std::filesystem::path dir = std::filesystem::path(RECON_SOURCE_DIR) / "fuzz/regressions/fuzz_cel";
  size_t n = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(f.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    auto p = CompileConstraintCel(ss.str());
    EXPECT_TRUE(p.ok()) << f.path() << ": " << p.status();
    if (p.ok()) (void)EvaluateConstraintCel(*p, Props(kBundle));
    ++n;
  }
  EXPECT_GE(n, 4u);
}

// A catalog where app depends on db through a CEL rule; db has 1.0.0, 1.0.1
// and 1.0.2 in one channel (head 1.0.2).
std::shared_ptr<const CatalogIndex> CelCatalog(std::string_view rule, std::string_view failure) {
  std::string constraint = engine::Dump(
      engine::Json{{"failureMessage", failure}, {"cel", engine::Json{{"rule", std::string(rule)}}}});
  auto bundle = [](std::string pkg, std::string version, std::string extra) {
    return StrCat(R"({"schema":"olm.bundle","package":")", pkg, R"(","name":")", pkg, ".v", version,
                  R"(","image":"quay.io/x/)", pkg, ":", version,
                  R"(","properties":[{"type":"olm.package","value":{"packageName":")", pkg,
                  R"(","version":")", version, R"("}})", extra, "]}\n");
  };
  std::string files =
      R"({"schema":"olm.package","name":"app","defaultChannel":"stable"})"
      "\n"
      R"({"schema":"olm.channel","package":"app","name":"stable","entries":[{"name":"app.v1.0.0"}]})"
      "\n" +
      bundle("app", "1.0.0", StrCat(R"(,{"type":"olm.constraint","value":)", constraint, "}")) +
      R"({"schema":"olm.package","name":"db","defaultChannel":"stable"})"
      "\n"
      R"({"schema":"olm.channel","package":"db","name":"stable","entries":[{"name":"db.v1.0.0"},{"name":"db.v1.0.1","replaces":"db.v1.0.0"},{"name":"db.v1.0.2","replaces":"db.v1.0.1"}]})"
      "\n" +
      bundle("db", "1.0.0", "") + bundle("db", "1.0.1", "") + bundle("db", "1.0.2", "");
  auto idx = CatalogIndex::Load({{"catalog.json", files}});
  EXPECT_TRUE(idx.ok()) << idx.status();
  return idx.ok() ? *idx : nullptr;
}

absl::StatusOr<ResolveResult> ResolveApp(std::shared_ptr<const CatalogIndex> idx) {
  ResolveInput in;
  in.ns = "ns";
  in.catalogs.push_back({"community", "global", 0, std::move(idx)});
  in.subscriptions.push_back({"app", "app", "stable", "community", "global", "", ""});
  return Resolve(in);
}

TEST(CelResolver, DependencyPicksTheBundleTheRuleAccepts) {
  // The head (1.0.2) would win a plain package dependency; the rule wants 1.0.1 exactly.
  auto idx = CelCatalog(
      "properties.exists(p, p.type == 'olm.package' && p.value.packageName == 'db' && "
      "semver_compare(p.value.version, '1.0.1') == 0)",
      "db 1.0.1 is required");
  ASSERT_NE(idx, nullptr);
  auto r = ResolveApp(idx);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->operators.size(), 2u);
  EXPECT_EQ(r->operators[0].csv, "app.v1.0.0");
  EXPECT_EQ(r->operators[1].csv, "db.v1.0.1");
  EXPECT_NE(r->operators[1].why.find("with constraint: "), std::string::npos) << r->operators[1].why;
  // A rule several bundles satisfy: the channel order decides (head first).
  auto any =
      ResolveApp(CelCatalog("properties.exists(p, p.type == 'olm.package' && p.value.packageName == 'db' && "
                            "semver_compare(p.value.version, '1.0.2') < 0)",
                            "db below 1.0.2"));
  ASSERT_TRUE(any.ok()) << any.status();
  ASSERT_EQ(any->operators.size(), 2u);
  EXPECT_EQ(any->operators[1].csv, "db.v1.0.1");
}

TEST(CelResolver, NoMatchingBundleNamesTheRuleAndMessage) {
  auto r =
      ResolveApp(CelCatalog("properties.exists(p, p.type == 'olm.package' && p.value.packageName == 'db' && "
                            "semver_compare(p.value.version, '2.0.0') >= 0)",
                            "db 2 or newer is required"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(std::string(Sv(r.status().message())),
            "constraints not satisfiable: subscription app exists, subscription app requires "
            "community/global/stable/app.v1.0.0, bundle app.v1.0.0 requires an operator with constraint: "
            "\"properties.exists(p, p.type == 'olm.package' && p.value.packageName == 'db' && "
            "semver_compare(p.value.version, '2.0.0') >= 0)\" and message: \"db 2 or newer is required\"");
}

TEST(CelResolver, RuleThatDoesNotCompileIsAResolutionError) {
  auto r = ResolveApp(CelCatalog("properties.size()", "x"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(std::string(Sv(r.status().message())),
            "bundle app.v1.0.0: convert olm.constraint to resolver predicate: cel expressions must have type "
            "Bool");
}

}  // namespace
}  // namespace recon::olm
