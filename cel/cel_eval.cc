#include "cel/cel_eval.h"

#include <re2/re2.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/strings.h"
#include "cel/cel_env.h"

namespace recon::cel {
namespace {

using V = CelValue;
using VK = CelValue::Kind;
using Op = CelExpr::Op;
using Result = absl::StatusOr<CelValue>;

absl::Status Err(std::string_view msg) { return absl::InvalidArgumentError(Av(msg)); }
absl::Status NoOverload(std::string_view fn) { return Err(StrCat("no such overload: ", fn)); }
absl::Status Overflow() { return Err("integer overflow"); }

// The integral value of an index (int, uint, or a whole double).
std::optional<int64_t> IndexOf(const V& v) {
  if (v.is(VK::kInt)) return v.AsInt();
  if (v.is(VK::kUint)) {
    if (v.AsUint() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return static_cast<int64_t>(v.AsUint());
  }
  if (v.is(VK::kDouble)) {
    double d = v.AsDouble();
    if (!(d >= -9.2e18 && d <= 9.2e18) || std::trunc(d) != d) return std::nullopt;  // whole, and fits
    return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

size_t CodePoints(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// strconv.ParseInt/ParseUint(s, 10, 64): optional sign, decimal digits only.
template <typename T>
std::optional<T> ParseInteger(const std::string& s) {
  std::string_view d = s;
  if (!d.empty() && d.front() == '+') d.remove_prefix(1);
  T v{};
  auto r = std::from_chars(d.data(), d.data() + d.size(), v, 10);
  if (d.empty() || r.ec != std::errc() || r.ptr != d.data() + d.size()) return std::nullopt;
  return v;
}

std::optional<double> ParseDouble(const std::string& s) {
  std::string_view d = s;
  if (d.size() > 1 && d.front() == '+' && d[1] != '-' && d[1] != '+') d.remove_prefix(1);
  double v = 0;
  auto r = std::from_chars(d.data(), d.data() + d.size(), v);
  if (d.empty() || r.ec != std::errc() || r.ptr != d.data() + d.size()) return std::nullopt;
  return v;
}

Result ToInt(const V& v) {
  switch (v.kind()) {
    case VK::kInt:
      return v;
    case VK::kUint:
      if (v.AsUint() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return Overflow();
      return V::Int(static_cast<int64_t>(v.AsUint()));
    case VK::kDouble: {
      double d = v.AsDouble();
      // [-2^63, 2^63): the representable doubles that fit.
      if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return Overflow();
      return V::Int(static_cast<int64_t>(d));
    }
    case VK::kString: {
      auto i = ParseInteger<int64_t>(v.AsString());
      if (!i) return Err(StrCat("cannot convert '", v.AsString(), "' to int"));
      return V::Int(*i);
    }
    default:
      return NoOverload("int");
  }
}

Result ToUint(const V& v) {
  switch (v.kind()) {
    case VK::kInt:
      if (v.AsInt() < 0) return Err("unsigned integer overflow");
      return V::Uint(static_cast<uint64_t>(v.AsInt()));
    case VK::kUint:
      return v;
    case VK::kDouble: {
      double d = v.AsDouble();
      if (!(d > -1.0 && d < 18446744073709551616.0)) return Err("unsigned integer overflow");
      return V::Uint(static_cast<uint64_t>(d));
    }
    case VK::kString: {
      std::string_view s = v.AsString();
      auto u = s.empty() || s.front() == '-' ? std::nullopt : ParseInteger<uint64_t>(v.AsString());
      if (!u) return Err(StrCat("cannot convert '", v.AsString(), "' to uint"));
      return V::Uint(*u);
    }
    default:
      return NoOverload("uint");
  }
}

Result ToDouble(const V& v) {
  switch (v.kind()) {
    case VK::kInt:
      return V::Double(static_cast<double>(v.AsInt()));
    case VK::kUint:
      return V::Double(static_cast<double>(v.AsUint()));
    case VK::kDouble:
      return v;
    case VK::kString: {
      auto d = ParseDouble(v.AsString());
      if (!d) return Err(StrCat("cannot convert '", v.AsString(), "' to double"));
      return V::Double(*d);
    }
    default:
      return NoOverload("double");
  }
}

Result ToString(const V& v) {
  switch (v.kind()) {
    case VK::kInt:
      return V::String(std::to_string(v.AsInt()));
    case VK::kUint:
      return V::String(std::to_string(v.AsUint()));
    case VK::kDouble:
      return V::String(GoFormatDouble(v.AsDouble()));
    case VK::kString:
      return v;
    case VK::kBool:
      return V::String(v.AsBool() ? "true" : "false");
    default:
      return NoOverload("string");
  }
}

Result IntArith(Op op, int64_t a, int64_t b) {
  int64_t r = 0;
  switch (op) {
    case Op::kAdd:
      if (__builtin_add_overflow(a, b, &r)) return Overflow();
      return V::Int(r);
    case Op::kSub:
      if (__builtin_sub_overflow(a, b, &r)) return Overflow();
      return V::Int(r);
    case Op::kMul:
      if (__builtin_mul_overflow(a, b, &r)) return Overflow();
      return V::Int(r);
    case Op::kDiv:
      if (b == 0) return Err("division by zero");
      if (a == std::numeric_limits<int64_t>::min() && b == -1) return Overflow();
      return V::Int(a / b);
    default:  // kMod
      if (b == 0) return Err("modulus by zero");
      if (a == std::numeric_limits<int64_t>::min() && b == -1) return Overflow();
      return V::Int(a % b);
  }
}

Result UintArith(Op op, uint64_t a, uint64_t b) {
  uint64_t r = 0;
  switch (op) {
    case Op::kAdd:
      if (__builtin_add_overflow(a, b, &r)) return Overflow();
      return V::Uint(r);
    case Op::kSub:
      if (__builtin_sub_overflow(a, b, &r)) return Overflow();
      return V::Uint(r);
    case Op::kMul:
      if (__builtin_mul_overflow(a, b, &r)) return Overflow();
      return V::Uint(r);
    case Op::kDiv:
      if (b == 0) return Err("division by zero");
      return V::Uint(a / b);
    default:
      if (b == 0) return Err("modulus by zero");
      return V::Uint(a % b);
  }
}

class Evaluator {
 public:
  Evaluator(const CelEnv& env, const CelActivation& vars, int64_t budget)
      : env_(env), vars_(vars), budget_(budget) {}

  Result Eval(const CelExpr& e) {
    if (auto s = Spend(1); !s.ok()) return s;
    switch (e.kind) {
      case CelExpr::Kind::kLiteral:
        return e.literal;
      case CelExpr::Kind::kIdent:
        return Ident(e);
      case CelExpr::Kind::kSelect:
      case CelExpr::Kind::kHas:
        return Select(e);
      case CelExpr::Kind::kIndex:
        return Index(e);
      case CelExpr::Kind::kCall:
        return Call(e);
      case CelExpr::Kind::kList:
        return ListLiteral(e);
      case CelExpr::Kind::kMap:
        return MapLiteral(e);
      case CelExpr::Kind::kUnary:
        return Unary(e);
      case CelExpr::Kind::kBinary:
        return Binary(e);
      case CelExpr::Kind::kAnd:
      case CelExpr::Kind::kOr:
        return Logical(e);
      case CelExpr::Kind::kConditional:
        return Conditional(e);
      case CelExpr::Kind::kComprehension:
        return Comprehension(e);
    }
    return Err("unknown expression");
  }

 private:
  absl::Status Spend(int64_t units) {
    budget_ -= units;
    if (budget_ < 0) return Err("evaluation cost limit exceeded");
    return absl::OkStatus();
  }

  Result Ident(const CelExpr& e) {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
      if (*it->first == e.name) return *it->second;
    for (const auto& [name, value] : vars_)
      if (name == e.name && value != nullptr) return *value;
    return Err(StrCat("undeclared reference to '", e.name, "'"));
  }

  Result Select(const CelExpr& e) {
    auto m = Eval(*e.args[0]);
    if (!m.ok()) return m;
    if (!m->is(VK::kMap)) {
      return Err(StrCat("type '", CelKindName(m->kind()), "' does not support field selection"));
    }
    const V* v = m->Find(V::String(e.name));
    if (e.kind == CelExpr::Kind::kHas) return V::Bool(v != nullptr);
    if (v == nullptr) return Err(StrCat("no such key: ", e.name));
    return *v;
  }

  Result Index(const CelExpr& e) {
    auto c = Eval(*e.args[0]);
    if (!c.ok()) return c;
    auto i = Eval(*e.args[1]);
    if (!i.ok()) return i;
    if (c->is(VK::kList)) {
      auto n = IndexOf(*i);
      if (!n) return NoOverload("_[_]");
      if (*n < 0 || static_cast<uint64_t>(*n) >= c->AsList().size()) {
        return Err(StrCat("index out of range: ", *n));
      }
      return c->AsList()[*n];
    }
    if (c->is(VK::kMap)) {
      const V* v = c->Find(*i);
      if (v == nullptr)
        return Err(StrCat("no such key: ", i->is(VK::kString) ? i->AsString() : i->DebugString()));
      return *v;
    }
    return NoOverload("_[_]");
  }

  Result Call(const CelExpr& e) {
    std::vector<V> args;
    for (const auto& a : e.args) {
      auto v = Eval(*a);
      if (!v.ok()) return v;
      args.push_back(std::move(*v));
    }
    const std::string& f = e.name;
    if (f == "size" && args.size() == 1) {
      const V& x = args[0];
      if (x.is(VK::kString)) return V::Int(static_cast<int64_t>(CodePoints(x.AsString())));
      if (x.is(VK::kList)) return V::Int(static_cast<int64_t>(x.AsList().size()));
      if (x.is(VK::kMap)) return V::Int(static_cast<int64_t>(x.AsMap().size()));
      return NoOverload("size");
    }
    if (e.receiver && args.size() == 2 && (f == "contains" || f == "startsWith" || f == "endsWith")) {
      if (!args[0].is(VK::kString) || !args[1].is(VK::kString)) return NoOverload(f);
      const std::string &s = args[0].AsString(), &t = args[1].AsString();
      if (f == "contains") return V::Bool(s.find(t) != std::string::npos);
      if (f == "startsWith") return V::Bool(s.compare(0, t.size(), t) == 0);
      return V::Bool(s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0);
    }
    if (!e.receiver && args.size() == 1) {
      if (f == "int") return ToInt(args[0]);
      if (f == "uint") return ToUint(args[0]);
      if (f == "double") return ToDouble(args[0]);
      if (f == "string") return ToString(args[0]);
    }
    // Receiver or global form, the text first either way.
    if (args.size() == 2 && f == "matches") return Matches(e, args[0], args[1]);
    for (const CelFunction* fn : env_.FindFunctions(f, e.receiver)) {
      if (fn->params.size() != args.size()) continue;
      bool ok = true;
      for (size_t i = 0; i < args.size() && ok; ++i) ok = KindAccepts(fn->params[i], args[i]);
      if (ok) return fn->impl(args);
    }
    return NoOverload(f);
  }

  // Go's regexp.MatchString: an unanchored search. RE2 is linear in the
  // text, so the text's bytes are what it costs.
  Result Matches(const CelExpr& e, const V& text, const V& pattern) {
    if (!text.is(VK::kString) || !pattern.is(VK::kString)) return NoOverload("matches");
    if (auto s = Spend(static_cast<int64_t>((text.AsString().size() + pattern.AsString().size()) / 8));
        !s.ok())
      return s;
    std::shared_ptr<const re2::RE2> re = e.regex ? e.regex : CompileCelRegex(pattern.AsString());
    if (!re->ok()) return Err(StrCat("invalid regular expression '", pattern.AsString(), "': ", re->error()));
    return V::Bool(re2::RE2::PartialMatch(text.AsString(), *re));
  }

  Result ListLiteral(const CelExpr& e) {
    V::List out;
    out.reserve(e.args.size());
    for (const auto& a : e.args) {
      auto v = Eval(*a);
      if (!v.ok()) return v;
      out.push_back(std::move(*v));
    }
    return V::MakeList(std::move(out));
  }

  Result MapLiteral(const CelExpr& e) {
    V::Map out;
    for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
      auto k = Eval(*e.args[i]);
      if (!k.ok()) return k;
      auto v = Eval(*e.args[i + 1]);
      if (!v.ok()) return v;
      if (!(k->is(VK::kBool) || k->is(VK::kInt) || k->is(VK::kUint) || k->is(VK::kString))) {
        return Err(StrCat("unsupported key type: ", CelKindName(k->kind())));
      }
      for (const auto& [seen, unused] : out)
        if (CelEquals(seen, *k)) return Err(StrCat("Failed with repeated key: ", k->DebugString()));
      out.emplace_back(std::move(*k), std::move(*v));
    }
    return V::MakeMap(std::move(out));
  }

  Result Unary(const CelExpr& e) {
    auto v = Eval(*e.args[0]);
    if (!v.ok()) return v;
    if (e.op == Op::kNot) {
      if (!v->is(VK::kBool)) return NoOverload("!_");
      return V::Bool(!v->AsBool());
    }
    if (v->is(VK::kInt)) {
      if (v->AsInt() == std::numeric_limits<int64_t>::min()) return Overflow();
      return V::Int(-v->AsInt());
    }
    if (v->is(VK::kDouble)) return V::Double(-v->AsDouble());
    return NoOverload("-_");
  }

  Result Binary(const CelExpr& e) {
    auto a = Eval(*e.args[0]);
    if (!a.ok()) return a;
    auto b = Eval(*e.args[1]);
    if (!b.ok()) return b;
    const std::string fn = e.op == Op::kIn ? std::string("@in") : StrCat("_", CelOpText(e.op), "_");
    switch (e.op) {
      case Op::kEq:
        return V::Bool(CelEquals(*a, *b));
      case Op::kNe:
        return V::Bool(!CelEquals(*a, *b));
      case Op::kLt:
      case Op::kLe:
      case Op::kGt:
      case Op::kGe: {
        auto c = CelCompare(*a, *b);
        if (!c) {
          // NaN compares false; other mismatches have no overload.
          if (a->IsNumber() && b->IsNumber()) return V::Bool(false);
          return NoOverload(fn);
        }
        bool r = e.op == Op::kLt ? *c < 0 : e.op == Op::kLe ? *c <= 0 : e.op == Op::kGt ? *c > 0 : *c >= 0;
        return V::Bool(r);
      }
      case Op::kIn:
        if (b->is(VK::kList)) {
          for (const V& x : b->AsList())
            if (CelEquals(*a, x)) return V::Bool(true);
          return V::Bool(false);
        }
        if (b->is(VK::kMap)) return V::Bool(b->Find(*a) != nullptr);
        return NoOverload(fn);
      default:
        return Arith(e.op, fn, *a, *b);
    }
  }

  Result Arith(Op op, const std::string& fn, const V& a, const V& b) {
    if (a.kind() != b.kind()) return NoOverload(fn);
    switch (a.kind()) {
      case VK::kInt:
        return IntArith(op, a.AsInt(), b.AsInt());
      case VK::kUint:
        return UintArith(op, a.AsUint(), b.AsUint());
      case VK::kDouble: {
        double x = a.AsDouble(), y = b.AsDouble();
        switch (op) {
          case Op::kAdd:
            return V::Double(x + y);
          case Op::kSub:
            return V::Double(x - y);
          case Op::kMul:
            return V::Double(x * y);
          case Op::kDiv:
            return V::Double(x / y);
          default:
            return NoOverload(fn);
        }
      }
      case VK::kString: {
        if (op != Op::kAdd) return NoOverload(fn);
        size_t n = a.AsString().size() + b.AsString().size();
        if (auto s = Spend(static_cast<int64_t>(n / 8)); !s.ok()) return s;
        return V::String(a.AsString() + b.AsString());
      }
      case VK::kList: {
        if (op != Op::kAdd) return NoOverload(fn);
        V::List out = a.AsList();
        if (auto s = Spend(static_cast<int64_t>(out.size() + b.AsList().size())); !s.ok()) return s;
        out.insert(out.end(), b.AsList().begin(), b.AsList().end());
        return V::MakeList(std::move(out));
      }
      default:
        return NoOverload(fn);
    }
  }

  // && and ||: the deciding value (false for &&, true for ||) on either side
  // wins over an error or a non-bool on the other side.
  Result Logical(const CelExpr& e) {
    const bool decisive = e.kind == CelExpr::Kind::kOr;
    auto a = Eval(*e.args[0]);
    if (a.ok() && a->is(VK::kBool) && a->AsBool() == decisive) return *a;
    auto b = Eval(*e.args[1]);
    if (b.ok() && b->is(VK::kBool) && b->AsBool() == decisive) return *b;
    if (!a.ok()) return a;
    if (!a->is(VK::kBool)) return NoOverload(decisive ? "_||_" : "_&&_");
    if (!b.ok()) return b;
    if (!b->is(VK::kBool)) return NoOverload(decisive ? "_||_" : "_&&_");
    return V::Bool(!decisive);
  }

  Result Conditional(const CelExpr& e) {
    auto c = Eval(*e.args[0]);
    if (!c.ok()) return c;
    if (!c->is(VK::kBool)) return NoOverload("_?_:_");
    return Eval(*e.args[c->AsBool() ? 1 : 2]);
  }

  Result Comprehension(const CelExpr& e) {
    auto range = Eval(*e.args[0]);
    if (!range.ok()) return range;
    std::vector<V> items;
    if (range->is(VK::kList)) {
      items = range->AsList();
    } else if (range->is(VK::kMap)) {
      for (const auto& kv : range->AsMap()) items.push_back(kv.first);  // map macros range over keys
    } else {
      return Err(
          StrCat("expression of type '", CelKindName(range->kind()), "' cannot be range of a comprehension"));
    }
    if (auto s = Spend(static_cast<int64_t>(items.size())); !s.ok()) return s;
    scope_.emplace_back(&e.name, nullptr);
    Result r = Loop(e, items);
    scope_.pop_back();
    return r;
  }

  Result Loop(const CelExpr& e, const std::vector<V>& items) {
    using M = CelExpr::Macro;
    const bool quantifier = e.macro == M::kAll || e.macro == M::kExists;
    // all stops at a false, exists at a true; errors count only if nothing decides.
    const bool decisive = e.macro == M::kExists;
    absl::Status first_error;
    int64_t count = 0;
    V::List out;
    for (const V& item : items) {
      scope_.back().second = &item;
      auto p = Eval(*e.args[1]);
      if (e.macro == M::kMap && e.args.size() == 2) {
        if (!p.ok()) return p;
        out.push_back(std::move(*p));
        continue;
      }
      bool bool_ok = p.ok() && p->is(VK::kBool);
      if (quantifier) {
        if (bool_ok && p->AsBool() == decisive) return V::Bool(decisive);
        if (!bool_ok && first_error.ok())
          first_error = p.ok() ? NoOverload(decisive ? "exists" : "all") : p.status();
        continue;
      }
      if (!p.ok()) return p;
      if (!bool_ok)
        return NoOverload(e.macro == M::kExistsOne ? "exists_one" : e.macro == M::kFilter ? "filter" : "map");
      if (!p->AsBool()) continue;
      if (e.macro == M::kExistsOne) {
        ++count;
      } else if (e.macro == M::kFilter) {
        out.push_back(item);
      } else {  // map with a filter: transform what passed
        auto t = Eval(*e.args[2]);
        if (!t.ok()) return t;
        out.push_back(std::move(*t));
      }
    }
    if (quantifier) {
      if (!first_error.ok()) return first_error;
      return V::Bool(!decisive);
    }
    if (e.macro == M::kExistsOne) return V::Bool(count == 1);
    return V::MakeList(std::move(out));
  }

  // Does a value of this runtime kind fit the declared parameter type?
  static bool KindAccepts(const CelType& t, const V& v) {
    using TK = CelType::Kind;
    switch (t.kind) {
      case TK::kDyn:
        return true;
      case TK::kNull:
        return v.is(VK::kNull);
      case TK::kBool:
        return v.is(VK::kBool);
      case TK::kInt:
        return v.is(VK::kInt);
      case TK::kUint:
        return v.is(VK::kUint);
      case TK::kDouble:
        return v.is(VK::kDouble);
      case TK::kString:
        return v.is(VK::kString);
      case TK::kList:
        return v.is(VK::kList);
      case TK::kMap:
        return v.is(VK::kMap);
    }
    return false;
  }

  const CelEnv& env_;
  const CelActivation& vars_;
  int64_t budget_;
  // Comprehension variables, innermost last; values point into the range being iterated.
  std::vector<std::pair<const std::string*, const V*>> scope_;
};

}  // namespace

std::shared_ptr<const re2::RE2> CompileCelRegex(std::string_view pattern) {
  re2::RE2::Options options;
  options.set_log_errors(false);  // the error is the evaluation's, not stderr's
  return std::make_shared<const re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
}

absl::StatusOr<CelValue> EvalCel(const CelExpr& e, const CelEnv& env, const CelActivation& vars,
                                 int64_t budget) {
  return Evaluator(env, vars, budget).Eval(e);
}

}  // namespace recon::cel
