#include "cel/cel_check.h"

#include <optional>
#include <utility>
#include <vector>

#include "base/strings.h"
#include "cel/cel_env.h"
#include "cel/cel_lexer.h"

namespace recon::cel {
namespace {

using K = CelType::Kind;
using Op = CelExpr::Op;

CelType T(K k) { return CelType::Of(k); }
bool IsDyn(const CelType& t) { return t.kind == K::kDyn; }

// Can a value of type `arg` be passed where `param` is expected?
bool Assignable(const CelType& param, const CelType& arg) {
  if (IsDyn(param) || IsDyn(arg)) return true;
  if (param.kind != arg.kind) return false;
  if (param.kind == K::kList) return Assignable(*param.elem, *arg.elem);
  if (param.kind == K::kMap) return Assignable(*param.key, *arg.key) && Assignable(*param.elem, *arg.elem);
  return true;
}

// The common type of two branches or elements: the type itself, else dyn.
CelType Join(const CelType& a, const CelType& b) { return a == b ? a : T(K::kDyn); }

// One signature of an operator or function.
struct Overload {
  std::vector<CelType> params;
  CelType result;
};

std::vector<Overload> Sigs(std::initializer_list<std::pair<std::vector<K>, K>> list) {
  std::vector<Overload> out;
  for (const auto& [params, result] : list) {
    Overload o;
    for (K k : params) o.params.push_back(T(k));
    o.result = T(result);
    out.push_back(std::move(o));
  }
  return out;
}

const std::vector<Overload>& OperatorSigs(Op op) {
  static const auto* kNot = new std::vector<Overload>(Sigs({{{K::kBool}, K::kBool}}));
  static const auto* kNeg =
      new std::vector<Overload>(Sigs({{{K::kInt}, K::kInt}, {{K::kDouble}, K::kDouble}}));
  static const auto* kArith = new std::vector<Overload>(Sigs({{{K::kInt, K::kInt}, K::kInt},
                                                              {{K::kUint, K::kUint}, K::kUint},
                                                              {{K::kDouble, K::kDouble}, K::kDouble}}));
  static const auto* kAdd = new std::vector<Overload>(Sigs({{{K::kInt, K::kInt}, K::kInt},
                                                            {{K::kUint, K::kUint}, K::kUint},
                                                            {{K::kDouble, K::kDouble}, K::kDouble},
                                                            {{K::kString, K::kString}, K::kString}}));
  static const auto* kMod =
      new std::vector<Overload>(Sigs({{{K::kInt, K::kInt}, K::kInt}, {{K::kUint, K::kUint}, K::kUint}}));
  // Numbers compare across int, uint and double (cel-go's cross-type numeric comparisons).
  static const auto* kOrder = [] {
    auto* v = new std::vector<Overload>(
        Sigs({{{K::kBool, K::kBool}, K::kBool}, {{K::kString, K::kString}, K::kBool}}));
    for (K a : {K::kInt, K::kUint, K::kDouble})
      for (K b : {K::kInt, K::kUint, K::kDouble}) v->push_back({{T(a), T(b)}, T(K::kBool)});
    return v;
  }();
  switch (op) {
    case Op::kNot:
      return *kNot;
    case Op::kNeg:
      return *kNeg;
    case Op::kAdd:
      return *kAdd;
    case Op::kSub:
    case Op::kMul:
    case Op::kDiv:
      return *kArith;
    case Op::kMod:
      return *kMod;
    default:
      return *kOrder;
  }
}

// Global functions, and functions called on a receiver (receiver first).
const std::vector<Overload>* FunctionSigs(const std::string& name, bool receiver) {
  static const auto* kSize = new std::vector<Overload>{{{T(K::kString)}, T(K::kInt)},
                                                       {{CelType::List(T(K::kDyn))}, T(K::kInt)},
                                                       {{CelType::Map(T(K::kDyn), T(K::kDyn))}, T(K::kInt)}};
  static const auto* kStringPair = new std::vector<Overload>(Sigs({{{K::kString, K::kString}, K::kBool}}));
  static const auto* kToInt = new std::vector<Overload>(
      Sigs({{{K::kInt}, K::kInt}, {{K::kUint}, K::kInt}, {{K::kDouble}, K::kInt}, {{K::kString}, K::kInt}}));
  static const auto* kToUint = new std::vector<Overload>(Sigs(
      {{{K::kInt}, K::kUint}, {{K::kUint}, K::kUint}, {{K::kDouble}, K::kUint}, {{K::kString}, K::kUint}}));
  static const auto* kToDouble = new std::vector<Overload>(Sigs({{{K::kInt}, K::kDouble},
                                                                 {{K::kUint}, K::kDouble},
                                                                 {{K::kDouble}, K::kDouble},
                                                                 {{K::kString}, K::kDouble}}));
  static const auto* kToString = new std::vector<Overload>(Sigs({{{K::kInt}, K::kString},
                                                                 {{K::kUint}, K::kString},
                                                                 {{K::kDouble}, K::kString},
                                                                 {{K::kString}, K::kString},
                                                                 {{K::kBool}, K::kString}}));
  if (name == "size") return kSize;
  if (receiver) {
    if (name == "contains" || name == "startsWith" || name == "endsWith" || name == "matches")
      return kStringPair;
    return nullptr;
  }
  if (name == "matches") return kStringPair;
  if (name == "int") return kToInt;
  if (name == "uint") return kToUint;
  if (name == "double") return kToDouble;
  if (name == "string") return kToString;
  return nullptr;
}

class Checker {
 public:
  Checker(std::string_view src, const CelEnv& env) : src_(src), env_(env) {}

  absl::StatusOr<CelType> Check(const CelExpr& e) {
    switch (e.kind) {
      case CelExpr::Kind::kLiteral:
        return LiteralType(e.literal);
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
      case CelExpr::Kind::kBinary:
        return Operator(e);
      case CelExpr::Kind::kAnd:
      case CelExpr::Kind::kOr:
        return Logical(e);
      case CelExpr::Kind::kConditional:
        return Conditional(e);
      case CelExpr::Kind::kComprehension:
        return Comprehension(e);
    }
    return Error(e, "unknown expression");
  }

 private:
  absl::Status Error(const CelExpr& e, std::string_view msg) const { return CelErrorAt(src_, e.offset, msg); }
  absl::Status NoOverload(const CelExpr& e, std::string_view fn, const std::vector<CelType>& args) const {
    std::string list;
    for (size_t i = 0; i < args.size(); ++i) StrAppend(&list, i ? ", " : "", args[i].Name());
    return Error(e, StrCat("found no matching overload for '", fn, "' applied to '(", list, ")'"));
  }

  absl::StatusOr<std::vector<CelType>> CheckArgs(const CelExpr& e) {
    std::vector<CelType> out;
    for (const auto& a : e.args) {
      auto t = Check(*a);
      if (!t.ok()) return t.status();
      out.push_back(std::move(*t));
    }
    return out;
  }

  // The result of the overloads that accept `args`: their common type, else dyn.
  absl::StatusOr<CelType> Resolve(const CelExpr& e, std::string_view fn, const std::vector<Overload>& sigs,
                                  const std::vector<CelType>& args) {
    std::optional<CelType> result;
    for (const Overload& o : sigs) {
      if (o.params.size() != args.size()) continue;
      bool ok = true;
      for (size_t i = 0; i < args.size() && ok; ++i) ok = Assignable(o.params[i], args[i]);
      if (ok) result = result ? Join(*result, o.result) : o.result;
    }
    if (!result) return NoOverload(e, fn, args);
    return *result;
  }

  static CelType LiteralType(const CelValue& v) {
    switch (v.kind()) {
      case CelValue::Kind::kNull:
        return T(K::kNull);
      case CelValue::Kind::kBool:
        return T(K::kBool);
      case CelValue::Kind::kInt:
        return T(K::kInt);
      case CelValue::Kind::kUint:
        return T(K::kUint);
      case CelValue::Kind::kDouble:
        return T(K::kDouble);
      case CelValue::Kind::kString:
        return T(K::kString);
      default:
        return T(K::kDyn);  // the parser makes no list or map literals of this kind
    }
  }

  absl::StatusOr<CelType> Ident(const CelExpr& e) {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
      if (it->first == e.name) return it->second;
    if (const CelType* t = env_.FindVariable(e.name)) return *t;
    return Error(e, StrCat("undeclared reference to '", e.name, "' (in container '')"));
  }

  // a.f and has(a.f): a map with string keys, or dyn.
  absl::StatusOr<CelType> Select(const CelExpr& e) {
    auto operand = Check(*e.args[0]);
    if (!operand.ok()) return operand;
    CelType result = T(K::kDyn);
    if (operand->kind == K::kMap && Assignable(*operand->key, T(K::kString))) {
      result = *operand->elem;
    } else if (!IsDyn(*operand)) {
      return Error(e, StrCat("type '", operand->Name(), "' does not support field selection"));
    }
    return e.kind == CelExpr::Kind::kHas ? T(K::kBool) : result;
  }

  absl::StatusOr<CelType> Index(const CelExpr& e) {
    auto args = CheckArgs(e);
    if (!args.ok()) return args.status();
    const CelType &c = (*args)[0], &i = (*args)[1];
    if (IsDyn(c)) return T(K::kDyn);
    if (c.kind == K::kList && (IsDyn(i) || i.kind == K::kInt || i.kind == K::kUint)) return *c.elem;
    if (c.kind == K::kMap && Assignable(*c.key, i)) return *c.elem;
    return NoOverload(e, "_[_]", *args);
  }

  absl::StatusOr<CelType> Call(const CelExpr& e) {
    const std::vector<Overload>* builtin = FunctionSigs(e.name, e.receiver);
    std::vector<Overload> sigs;
    if (builtin != nullptr) sigs = *builtin;
    for (const CelFunction* f : env_.FindFunctions(e.name, e.receiver))
      sigs.push_back({f->params, f->result});
    if (sigs.empty()) return Error(e, StrCat("undeclared reference to '", e.name, "' (in container '')"));
    auto args = CheckArgs(e);
    if (!args.ok()) return args.status();
    return Resolve(e, e.name, sigs, *args);
  }

  absl::StatusOr<CelType> ListLiteral(const CelExpr& e) {
    auto args = CheckArgs(e);
    if (!args.ok()) return args.status();
    if (args->empty()) return CelType::List(T(K::kDyn));
    CelType elem = (*args)[0];
    for (const auto& t : *args) elem = Join(elem, t);
    return CelType::List(elem);
  }

  absl::StatusOr<CelType> MapLiteral(const CelExpr& e) {
    auto args = CheckArgs(e);
    if (!args.ok()) return args.status();
    if (args->empty()) return CelType::Map(T(K::kDyn), T(K::kDyn));
    CelType key = (*args)[0], value = (*args)[1];
    for (size_t i = 0; i < args->size(); i += 2) {
      const CelType& k = (*args)[i];
      if (!(IsDyn(k) || k.kind == K::kBool || k.kind == K::kInt || k.kind == K::kUint ||
            k.kind == K::kString))
        return Error(*e.args[i], StrCat("unsupported map key type: ", k.Name()));
      key = Join(key, k);
      value = Join(value, (*args)[i + 1]);
    }
    return CelType::Map(key, value);
  }

  absl::StatusOr<CelType> Operator(const CelExpr& e) {
    auto args = CheckArgs(e);
    if (!args.ok()) return args.status();
    const std::string fn = e.kind == CelExpr::Kind::kUnary ? StrCat(CelOpText(e.op), "_")
                           : e.op == Op::kIn               ? std::string("@in")
                                                           : StrCat("_", CelOpText(e.op), "_");
    switch (e.op) {
      case Op::kEq:
      case Op::kNe:
        if (!Assignable((*args)[0], (*args)[1])) return NoOverload(e, fn, *args);
        return T(K::kBool);
      case Op::kIn: {
        const CelType &x = (*args)[0], &c = (*args)[1];
        bool ok = IsDyn(c) || (c.kind == K::kList && Assignable(*c.elem, x)) ||
                  (c.kind == K::kMap && Assignable(*c.key, x));
        if (!ok) return NoOverload(e, fn, *args);
        return T(K::kBool);
      }
      case Op::kAdd: {
        const CelType &a = (*args)[0], &b = (*args)[1];
        // list + list (element types joined); a list and a dyn can only be that too.
        if (a.kind == K::kList && b.kind == K::kList) {
          if (!Assignable(a, b)) return NoOverload(e, fn, *args);
          return CelType::List(Join(*a.elem, *b.elem));
        }
        if (a.kind == K::kList && IsDyn(b)) return a;
        if (IsDyn(a) && b.kind == K::kList) return b;
        return Resolve(e, fn, OperatorSigs(e.op), *args);
      }
      default:
        return Resolve(e, fn, OperatorSigs(e.op), *args);
    }
  }

  absl::StatusOr<CelType> Logical(const CelExpr& e) {
    auto args = CheckArgs(e);
    if (!args.ok()) return args.status();
    if (!Assignable(T(K::kBool), (*args)[0]) || !Assignable(T(K::kBool), (*args)[1])) {
      return NoOverload(e, e.kind == CelExpr::Kind::kAnd ? "_&&_" : "_||_", *args);
    }
    return T(K::kBool);
  }

  absl::StatusOr<CelType> Conditional(const CelExpr& e) {
    auto args = CheckArgs(e);
    if (!args.ok()) return args.status();
    const CelType &c = (*args)[0], &a = (*args)[1], &b = (*args)[2];
    if (!Assignable(T(K::kBool), c) || !Assignable(a, b)) return NoOverload(e, "_?_:_", *args);
    return Join(a, b);
  }

  absl::StatusOr<CelType> Comprehension(const CelExpr& e) {
    auto range = Check(*e.args[0]);
    if (!range.ok()) return range;
    CelType var = T(K::kDyn);
    if (range->kind == K::kList) {
      var = *range->elem;
    } else if (range->kind == K::kMap) {
      var = *range->key;
    } else if (!IsDyn(*range)) {
      return Error(e, StrCat("expression of type '", range->Name(),
                             "' cannot be range of a comprehension (must be list, map, or dynamic)"));
    }
    scope_.emplace_back(e.name, var);
    std::vector<CelType> body;
    for (size_t i = 1; i < e.args.size(); ++i) {
      auto t = Check(*e.args[i]);
      if (!t.ok()) return t;
      body.push_back(std::move(*t));
    }
    scope_.pop_back();
    using M = CelExpr::Macro;
    static const char* const kMacroNames[] = {"all", "exists", "exists_one", "map", "filter"};
    // Every argument but map's transform is a predicate.
    for (size_t i = 0; i < body.size(); ++i) {
      bool predicate = e.macro != M::kMap || i + 1 < body.size();
      if (predicate && !Assignable(T(K::kBool), body[i])) {
        return Error(*e.args[i + 1], StrCat("predicate of '", kMacroNames[static_cast<int>(e.macro)],
                                            "' must be bool, found '", body[i].Name(), "'"));
      }
    }
    switch (e.macro) {
      case M::kMap:
        return CelType::List(body.back());
      case M::kFilter:
        return CelType::List(var);
      default:
        return T(K::kBool);
    }
  }

  std::string_view src_;
  const CelEnv& env_;
  std::vector<std::pair<std::string, CelType>> scope_;  // comprehension variables, innermost last
};

}  // namespace

CelType CelType::List(CelType elem) {
  return CelType{K::kList, nullptr, std::make_shared<const CelType>(std::move(elem))};
}

CelType CelType::Map(CelType key, CelType value) {
  return CelType{K::kMap, std::make_shared<const CelType>(std::move(key)),
                 std::make_shared<const CelType>(std::move(value))};
}

std::string CelType::Name() const {
  switch (kind) {
    case K::kDyn:
      return "dyn";
    case K::kNull:
      return "null_type";
    case K::kBool:
      return "bool";
    case K::kInt:
      return "int";
    case K::kUint:
      return "uint";
    case K::kDouble:
      return "double";
    case K::kString:
      return "string";
    case K::kList:
      return StrCat("list(", elem->Name(), ")");
    case K::kMap:
      return StrCat("map(", key->Name(), ", ", elem->Name(), ")");
  }
  return "";
}

bool CelType::operator==(const CelType& o) const {
  if (kind != o.kind) return false;
  if (kind == K::kList) return *elem == *o.elem;
  if (kind == K::kMap) return *key == *o.key && *elem == *o.elem;
  return true;
}

absl::StatusOr<CelType> CheckCel(const CelExpr& e, std::string_view source, const CelEnv& env) {
  return Checker(source, env).Check(e);
}

}  // namespace recon::cel
