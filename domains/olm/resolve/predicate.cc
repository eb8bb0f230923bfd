#include "domains/olm/resolve/predicate.h"

#include <algorithm>

#include "base/strings.h"
#include "engine/json.h"

namespace recon::olm {
namespace {

using engine::Json;

std::string Str(const Json& j, const char* k) {
  if (!j.is_object() || !j.contains(k) || !j[k].is_string()) return "";
  return j[k].get<std::string>();
}

absl::StatusOr<Predicate> PackagePredicate(std::string name, std::string range_text) {
  Predicate p;
  p.kind = Predicate::Kind::kPackage;
  p.package = std::move(name);
  p.range_text = std::move(range_text);
  auto r = ParseRange(p.range_text);
  if (!r.ok())
    return absl::InvalidArgumentError(
        StrCat("invalid range ", GoQuote(p.range_text), ": ", Sv(r.status().message())));
  p.range = std::move(*r);
  return p;
}

absl::StatusOr<Predicate> ConstraintFromJson(const Json& j, int depth) {
  if (!j.is_object()) return absl::InvalidArgumentError("parse olm.constraint: value is not an object");
  if (depth > 32) return absl::InvalidArgumentError("parse olm.constraint: nested too deeply");
  static const char* kKnown[] = {"failureMessage", "gvk", "package", "cel", "all", "any", "not"};
  for (const auto& [k, v] : j.items()) {
    if (std::find_if(std::begin(kKnown), std::end(kKnown), [&k = k](const char* n) { return k == n; }) ==
        std::end(kKnown)) {
      return absl::InvalidArgumentError(StrCat("parse olm.constraint: json: unknown field \"", k, "\""));
    }
  }
  Predicate p;
  p.failure_message = Str(j, "failureMessage");
  if (j.contains("gvk")) {
    p.kind = Predicate::Kind::kGvk;
    p.gvk = {Str(j["gvk"], "group"), Str(j["gvk"], "version"), Str(j["gvk"], "kind")};
    return p;
  }
  if (j.contains("package")) {
    auto q = PackagePredicate(Str(j["package"], "packageName"), Str(j["package"], "versionRange"));
    if (q.ok()) q->failure_message = p.failure_message;
    return q;
  }
  if (j.contains("cel")) {
    p.kind = Predicate::Kind::kCel;
    p.cel_rule = Str(j["cel"], "rule");
    auto program = CompileConstraintCel(p.cel_rule);
    if (!program.ok()) {
      return absl::InvalidArgumentError(
          StrCat("convert olm.constraint to resolver predicate: ", Sv(program.status().message())));
    }
    p.cel = std::make_shared<const cel::CelProgram>(std::move(*program));
    return p;
  }
  for (auto [key, kind] : {std::pair{"all", Predicate::Kind::kAll}, std::pair{"any", Predicate::Kind::kAny},
                           std::pair{"not", Predicate::Kind::kNot}}) {
    if (!j.contains(key)) continue;
    p.kind = kind;
    const Json& list = engine::Path(j[key], {"constraints"});
    if (list.is_array()) {
      for (const Json& c : list) {
        auto child = ConstraintFromJson(c, depth + 1);
        if (!child.ok()) return child.status();
        p.children.push_back(std::move(*child));
      }
    }
    return p;
  }
  return absl::InvalidArgumentError("convert olm.constraint to resolver predicate: constraint is empty");
}

cel::CelValue TypedProperty(std::string type, cel::CelValue value) {
  cel::CelValue::Map m;
  m.emplace_back(cel::CelValue::String("type"), cel::CelValue::String(std::move(type)));
  m.emplace_back(cel::CelValue::String("value"), std::move(value));
  return cel::CelValue::MakeMap(std::move(m));
}

cel::CelValue StringMap(std::initializer_list<std::pair<const char*, std::string>> kv) {
  cel::CelValue::Map m;
  for (const auto& [k, v] : kv) m.emplace_back(cel::CelValue::String(k), cel::CelValue::String(v));
  return cel::CelValue::MakeMap(std::move(m));
}

// `properties` as OLM hands it to CEL: [{type, value}], each value decoded
// from JSON. A value that does not decode leaves an empty map in its place
// (upstream: a nil map).
cel::CelValue CelProperties(const EntryFacts& e) {
  cel::CelValue::List out;
  if (e.properties != nullptr) {
    for (const PropertyText& p : *e.properties) {
      auto j = engine::ParseJson(p.value);
      out.push_back(j.ok() ? TypedProperty(p.type, cel::CelFromJson(*j)) : cel::CelValue::MakeMap({}));
    }
    return cel::CelValue::MakeList(std::move(out));
  }
  if (!e.package.empty()) {
    out.push_back(TypedProperty(
        "olm.package",
        StringMap({{"packageName", e.package}, {"version", e.version ? e.version->String() : ""}})));
  }
  if (e.provides) {
    for (const Gvk& g : *e.provides) {
      out.push_back(TypedProperty("olm.gvk",
                                  StringMap({{"group", g.group}, {"kind", g.kind}, {"version", g.version}})));
    }
  }
  if (e.labels) {
    for (const std::string& l : *e.labels)
      out.push_back(TypedProperty("olm.label", StringMap({{"label", l}})));
  }
  return cel::CelValue::MakeList(std::move(out));
}

std::string Join(const std::vector<Predicate>& cs, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < cs.size(); ++i) StrAppend(&out, i ? sep : "", cs[i].Text());
  return out;
}

}  // namespace

std::string Gvk::Text() const { return StrCat(kind, " (", group, "/", version, ")"); }

bool Predicate::Matches(const EntryFacts& e) const {
  switch (kind) {
    case Kind::kGvk:
      return e.provides && std::find(e.provides->begin(), e.provides->end(), gvk) != e.provides->end();
    case Kind::kPackage:
      return e.package == package && e.version && range && range->Matches(*e.version);
    case Kind::kLabel:
      return e.labels && std::find(e.labels->begin(), e.labels->end(), label) != e.labels->end();
    case Kind::kAll:
      for (const auto& c : children)
        if (!c.Matches(e)) return false;
      return true;
    case Kind::kAny:
      for (const auto& c : children)
        if (c.Matches(e)) return true;
      return false;
    case Kind::kNot:
      for (const auto& c : children)
        if (c.Matches(e)) return false;
      return true;
    case Kind::kCel: {
      if (!cel) return false;
      auto r = EvaluateConstraintCel(*cel, CelProperties(e));
      return r.ok() && *r;  // an evaluation error or a non-bool result is "no match"
    }
  }
  return false;
}

std::string Predicate::Text() const {
  switch (kind) {
    case Kind::kGvk:
      return StrCat("providing an API with group: ", gvk.group, ", version: ", gvk.version,
                    ", kind: ", gvk.kind);
    case Kind::kPackage:
      return StrCat("with package: ", package, " and with version in range: ", range_text);
    case Kind::kLabel:
      return StrCat("with label: ", label);
    case Kind::kAll:
      return Join(children, " and ");
    case Kind::kAny:
      return Join(children, " or ");
    case Kind::kNot:
      return StrCat("not ", Join(children, " or "));
    case Kind::kCel:
      return StrCat("with constraint: \"", cel_rule, "\" and message: \"", failure_message, "\"");
  }
  return "";
}

absl::StatusOr<std::optional<Predicate>> PredicateFromProperty(std::string_view type,
                                                               std::string_view value) {
  const bool gvk = type == "olm.gvk.required", pkg = type == "olm.package.required",
             label = type == "olm.label.required", constraint = type == "olm.constraint";
  if (!gvk && !pkg && !label && !constraint) return std::optional<Predicate>();
  if (constraint && value.size() > 131072) {
    return absl::InvalidArgumentError(
        "olm.constraint value is greater than max constraint size 131072 bytes");
  }
  auto j = engine::ParseJson(value);
  if (!j.ok()) return absl::InvalidArgumentError(StrCat("parse ", type, ": ", Sv(j.status().message())));
  if (gvk) {
    Predicate p;
    p.gvk = {Str(*j, "group"), Str(*j, "version"), Str(*j, "kind")};
    return std::optional<Predicate>(std::move(p));
  }
  if (pkg) {
    auto p = PackagePredicate(Str(*j, "packageName"), Str(*j, "versionRange"));
    if (!p.ok()) return p.status();
    return std::optional<Predicate>(std::move(*p));
  }
  if (label) {
    Predicate p;
    p.kind = Predicate::Kind::kLabel;
    p.label = Str(*j, "label");
    return std::optional<Predicate>(std::move(p));
  }
  auto p = ConstraintFromJson(*j, 0);
  if (!p.ok()) return p.status();
  return std::optional<Predicate>(std::move(*p));
}

}  // namespace recon::olm
