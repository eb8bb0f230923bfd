#include "cel/cel_value.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "base/strings.h"

namespace recon::cel {
namespace {

// long double holds every int64 and uint64 exactly on the platforms we build
// for (x86-64: 64-bit mantissa), so mixed comparisons need no special cases.
long double Wide(const CelValue& v) {
  switch (v.kind()) {
    case CelValue::Kind::kInt:
      return static_cast<long double>(v.AsInt());
    case CelValue::Kind::kUint:
      return static_cast<long double>(v.AsUint());
    default:
      return static_cast<long double>(v.AsDouble());
  }
}

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

CelValue CelValue::MakeList(List l) {
  return CelValue(Rep(std::in_place_index<6>, std::make_shared<const List>(std::move(l))));
}

CelValue CelValue::MakeMap(Map m) {
  return CelValue(Rep(std::in_place_index<7>, std::make_shared<const Map>(std::move(m))));
}

const CelValue* CelValue::Find(const CelValue& key) const {
  for (const auto& [k, v] : AsMap())
    if (CelEquals(k, key)) return &v;
  return nullptr;
}

std::string CelValue::DebugString() const {
  switch (kind()) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return AsBool() ? "true" : "false";
    case Kind::kInt:
      return std::to_string(AsInt());
    case Kind::kUint:
      return StrCat(AsUint(), "u");
    case Kind::kDouble: {
      std::string s = GoFormatDouble(AsDouble());
      // Keep doubles recognisable: 1 → 1.0.
      if (s.find_first_of(".eIN") == std::string::npos) s += ".0";
      return s;
    }
    case Kind::kString:
      return Quote(AsString());
    case Kind::kList: {
      std::string out = "[";
      for (size_t i = 0; i < AsList().size(); ++i) StrAppend(&out, i ? ", " : "", AsList()[i].DebugString());
      return out + "]";
    }
    case Kind::kMap: {
      std::string out = "{";
      for (size_t i = 0; i < AsMap().size(); ++i) {
        StrAppend(&out, i ? ", " : "", AsMap()[i].first.DebugString(), ": ", AsMap()[i].second.DebugString());
      }
      return out + "}";
    }
  }
  return "";
}

std::string_view CelKindName(CelValue::Kind k) {
  switch (k) {
    case CelValue::Kind::kNull:
      return "null_type";
    case CelValue::Kind::kBool:
      return "bool";
    case CelValue::Kind::kInt:
      return "int";
    case CelValue::Kind::kUint:
      return "uint";
    case CelValue::Kind::kDouble:
      return "double";
    case CelValue::Kind::kString:
      return "string";
    case CelValue::Kind::kList:
      return "list";
    case CelValue::Kind::kMap:
      return "map";
  }
  return "";
}

bool CelEquals(const CelValue& a, const CelValue& b) {
  if (a.IsNumber() && b.IsNumber()) {
    if (a.kind() == b.kind()) {
      if (a.is(CelValue::Kind::kInt)) return a.AsInt() == b.AsInt();
      if (a.is(CelValue::Kind::kUint)) return a.AsUint() == b.AsUint();
    }
    return Wide(a) == Wide(b);  // NaN never equals
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case CelValue::Kind::kNull:
      return true;
    case CelValue::Kind::kBool:
      return a.AsBool() == b.AsBool();
    case CelValue::Kind::kString:
      return a.AsString() == b.AsString();
    case CelValue::Kind::kList: {
      const auto &x = a.AsList(), &y = b.AsList();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!CelEquals(x[i], y[i])) return false;
      return true;
    }
    case CelValue::Kind::kMap: {
      if (a.AsMap().size() != b.AsMap().size()) return false;
      for (const auto& [k, v] : a.AsMap()) {
        const CelValue* w = b.Find(k);
        if (w == nullptr || !CelEquals(v, *w)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

std::optional<int> CelCompare(const CelValue& a, const CelValue& b) {
  auto sign = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  if (a.IsNumber() && b.IsNumber()) {
    if (a.kind() == b.kind() && a.is(CelValue::Kind::kInt)) return sign(a.AsInt(), b.AsInt());
    if (a.kind() == b.kind() && a.is(CelValue::Kind::kUint)) return sign(a.AsUint(), b.AsUint());
    long double x = Wide(a), y = Wide(b);
    if (std::isnan(x) || std::isnan(y)) return std::nullopt;
    return sign(x, y);
  }
  if (a.kind() != b.kind()) return std::nullopt;
  if (a.is(CelValue::Kind::kString)) return sign(a.AsString(), b.AsString());
  if (a.is(CelValue::Kind::kBool)) return sign(a.AsBool(), b.AsBool());
  return std::nullopt;
}

CelValue CelFromJson(const engine::Json& j) {
  if (j.is_boolean()) return CelValue::Bool(j.get<bool>());
  if (j.is_number()) return CelValue::Double(j.get<double>());
  if (j.is_string()) return CelValue::String(j.get<std::string>());
  if (j.is_array()) {
    CelValue::List l;
    l.reserve(j.size());
    for (const auto& e : j) l.push_back(CelFromJson(e));
    return CelValue::MakeList(std::move(l));
  }
  if (j.is_object()) {
    CelValue::Map m;
    m.reserve(j.size());
    // ordered_json keys are already unique.
    for (const auto& [k, v] : j.items()) m.emplace_back(CelValue::String(k), CelFromJson(v));
    return CelValue::MakeMap(std::move(m));
  }
  return CelValue::Null();
}

std::string GoFormatDouble(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  // Shortest round-trip digits, as "d.ddde±x".
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view sci(buf, res.ptr - buf);
  std::string out;
  if (sci.front() == '-') {
    out = "-";
    sci.remove_prefix(1);
  }
  size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e))
    if (c != '.') digits += c;
  int exp = 0;
  std::string_view es = sci.substr(e + 1);
  if (!es.empty() && es.front() == '+') es.remove_prefix(1);
  std::from_chars(es.data(), es.data() + es.size(), exp);
  // strconv 'g' with the shortest precision switches to %e outside [-4, 6).
  if (exp < -4 || exp >= 6) {
    out += digits[0];
    if (digits.size() > 1) StrAppend(&out, ".", std::string_view(digits).substr(1));
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    return out + eb;
  }
  int dp = exp + 1;  // digits before the decimal point
  int nd = static_cast<int>(digits.size());
  if (dp <= 0) return StrCat(out, "0.", std::string(-dp, '0'), digits);
  if (dp >= nd) return StrCat(out, digits, std::string(dp - nd, '0'));
  return StrCat(out, std::string_view(digits).substr(0, dp), ".", std::string_view(digits).substr(dp));
}

}  // namespace recon::cel
