#include "cel/cel_parser.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "base/strings.h"
#include "cel/cel_lexer.h"

namespace recon::cel {
namespace {

using ExprPtr = std::unique_ptr<CelExpr>;
using StatusOrExpr = absl::StatusOr<ExprPtr>;
using Kind = CelExpr::Kind;

// Words the grammar reserves; they cannot name anything.
bool Reserved(std::string_view s) {
  static const char* const kWords[] = {"as",        "break",  "const",  "continue", "else",  "for",
                                       "function",  "if",     "import", "let",      "loop",  "package",
                                       "namespace", "return", "var",    "void",     "while", "in",
                                       "true",      "false",  "null"};
  return std::any_of(std::begin(kWords), std::end(kWords), [&](const char* w) { return s == w; });
}

class Parser {
 public:
  Parser(std::string_view src, std::vector<CelToken> toks) : src_(src), toks_(std::move(toks)) {}

  StatusOrExpr Run() {
    auto e = Expr();
    if (!e.ok()) return e;
    if (Peek().kind != CelToken::Kind::kEnd) return Unexpected();
    return e;
  }

 private:
  const CelToken& Peek(size_t ahead = 0) const { return toks_[std::min(pos_ + ahead, toks_.size() - 1)]; }
  bool IsPunct(std::string_view p, size_t ahead = 0) const {
    return Peek(ahead).kind == CelToken::Kind::kPunct && Peek(ahead).text == p;
  }
  bool Accept(std::string_view p) {
    if (!IsPunct(p)) return false;
    ++pos_;
    return true;
  }
  absl::Status Error(int offset, std::string_view msg) const {
    return CelErrorAt(src_, offset, StrCat("Syntax error: ", msg));
  }
  absl::Status Unexpected() const {
    const CelToken& t = Peek();
    if (t.kind == CelToken::Kind::kEnd) return Error(t.offset, "unexpected end of expression");
    std::string what = t.kind == CelToken::Kind::kPunct || t.kind == CelToken::Kind::kIdent
                           ? StrCat("'", t.text, "'")
                           : std::string("literal");
    return Error(t.offset, StrCat("unexpected ", what));
  }
  absl::Status Expect(std::string_view p) {
    if (Accept(p)) return absl::OkStatus();
    const CelToken& t = Peek();
    std::string got = t.kind == CelToken::Kind::kEnd ? "end of expression" : StrCat("'", t.text, "'");
    if (t.kind != CelToken::Kind::kEnd && t.kind != CelToken::Kind::kPunct &&
        t.kind != CelToken::Kind::kIdent)
      got = "literal";
    return Error(t.offset, StrCat("expected '", p, "', found ", got));
  }

  // Every node is made here, so the height bound holds for the whole tree.
  StatusOrExpr Make(Kind kind, int offset, std::vector<ExprPtr> args) {
    auto e = std::make_unique<CelExpr>();
    e->kind = kind;
    e->offset = offset;
    for (const auto& a : args) e->height = std::max(e->height, a->height + 1);
    if (e->height > kCelMaxHeight) {
      return Error(offset, StrCat("expression nested more than ", kCelMaxHeight, " levels deep"));
    }
    e->args = std::move(args);
    return e;
  }
  template <typename... A>
  static std::vector<ExprPtr> Args(A&&... a) {
    std::vector<ExprPtr> v;
    (v.push_back(std::move(a)), ...);
    return v;
  }

  // Expr = ConditionalOr ["?" ConditionalOr ":" Expr]
  StatusOrExpr Expr() {
    // Parentheses recurse without adding nodes: bound the recursion itself too.
    if (++depth_ > kCelMaxHeight) return Error(Peek().offset, "expression nested too deeply");
    auto cond = Or();
    if (cond.ok() && IsPunct("?")) {
      int at = Peek().offset;
      ++pos_;
      auto then = Or();
      if (!then.ok()) return then;
      if (auto s = Expect(":"); !s.ok()) return s;
      auto otherwise = Expr();
      if (!otherwise.ok()) return otherwise;
      cond = Make(Kind::kConditional, at, Args(std::move(*cond), std::move(*then), std::move(*otherwise)));
    }
    --depth_;
    return cond;
  }

  // Chains of && or || become balanced trees (as in cel-go): shallower, and
  // the operators are commutative under CEL's error rules anyway.
  StatusOrExpr Logical(Kind kind, std::string_view op, StatusOrExpr (Parser::*operand)()) {
    auto first = (this->*operand)();
    if (!first.ok()) return first;
    std::vector<ExprPtr> terms;
    std::vector<int> ats;
    terms.push_back(std::move(*first));
    while (IsPunct(op)) {
      ats.push_back(Peek().offset);
      ++pos_;
      auto next = (this->*operand)();
      if (!next.ok()) return next;
      terms.push_back(std::move(*next));
    }
    return Balance(kind, terms, ats, 0, terms.size());
  }
  StatusOrExpr Balance(Kind kind, std::vector<ExprPtr>& terms, const std::vector<int>& ats, size_t lo,
                       size_t hi) {
    if (hi - lo == 1) return std::move(terms[lo]);
    size_t mid = lo + (hi - lo) / 2;
    auto left = Balance(kind, terms, ats, lo, mid);
    if (!left.ok()) return left;
    auto right = Balance(kind, terms, ats, mid, hi);
    if (!right.ok()) return right;
    return Make(kind, ats[mid - 1], Args(std::move(*left), std::move(*right)));
  }
  StatusOrExpr Or() { return Logical(Kind::kOr, "||", &Parser::And); }
  StatusOrExpr And() { return Logical(Kind::kAnd, "&&", &Parser::Relation); }

  // Left-associative binary levels.
  StatusOrExpr Binary(const std::vector<std::pair<std::string_view, CelExpr::Op>>& ops,
                      StatusOrExpr (Parser::*operand)()) {
    auto left = (this->*operand)();
    while (left.ok()) {
      const CelToken& t = Peek();
      auto it = std::find_if(ops.begin(), ops.end(), [&](const auto& o) {
        return (t.kind == CelToken::Kind::kPunct || (t.kind == CelToken::Kind::kIdent && o.first == "in")) &&
               t.text == o.first;
      });
      if (it == ops.end()) break;
      int at = t.offset;
      ++pos_;
      auto right = (this->*operand)();
      if (!right.ok()) return right;
      left = Make(Kind::kBinary, at, Args(std::move(*left), std::move(*right)));
      if (left.ok()) (*left)->op = it->second;
    }
    return left;
  }
  StatusOrExpr Relation() {
    using Op = CelExpr::Op;
    static const std::vector<std::pair<std::string_view, Op>> kOps = {
        {"==", Op::kEq}, {"!=", Op::kNe}, {"<", Op::kLt}, {"<=", Op::kLe},
        {">", Op::kGt},  {">=", Op::kGe}, {"in", Op::kIn}};
    return Binary(kOps, &Parser::Addition);
  }
  StatusOrExpr Addition() {
    static const std::vector<std::pair<std::string_view, CelExpr::Op>> kOps = {{"+", CelExpr::Op::kAdd},
                                                                               {"-", CelExpr::Op::kSub}};
    return Binary(kOps, &Parser::Multiplication);
  }
  StatusOrExpr Multiplication() {
    static const std::vector<std::pair<std::string_view, CelExpr::Op>> kOps = {
        {"*", CelExpr::Op::kMul}, {"/", CelExpr::Op::kDiv}, {"%", CelExpr::Op::kMod}};
    return Binary(kOps, &Parser::Unary);
  }

  // Unary = Member | "!" {"!"} Member | "-" {"-"} Member. An even run of
  // the same operator cancels out (cel-go drops it); a '-' right before a
  // number literal is the literal's sign.
  StatusOrExpr Unary() {
    if (!IsPunct("!") && !IsPunct("-")) return Member();
    std::string op = Peek().text;
    int at = Peek().offset;
    int n = 0;
    while (IsPunct(op)) {
      ++pos_;
      ++n;
    }
    StatusOrExpr operand = absl::UnknownError("");
    bool negative_literal = op == "-" && n % 2 == 1 &&
                            (Peek().kind == CelToken::Kind::kInt || Peek().kind == CelToken::Kind::kDouble);
    if (negative_literal) {
      auto lit = Literal(/*negative=*/true);
      if (!lit.ok()) return lit;
      operand = MemberSuffixes(std::move(*lit));
      --n;
    } else {
      operand = Member();
    }
    if (!operand.ok() || n % 2 == 0) return operand;
    auto e = Make(Kind::kUnary, at, Args(std::move(*operand)));
    if (e.ok()) (*e)->op = op == "!" ? CelExpr::Op::kNot : CelExpr::Op::kNeg;
    return e;
  }

  StatusOrExpr Member() {
    auto p = Primary();
    if (!p.ok()) return p;
    return MemberSuffixes(std::move(*p));
  }

  // Member "." IDENT ["(" args ")"] | Member "[" Expr "]"
  StatusOrExpr MemberSuffixes(ExprPtr e) {
    while (true) {
      if (IsPunct(".")) {
        ++pos_;
        const CelToken& id = Peek();
        if (id.kind != CelToken::Kind::kIdent) return Unexpected();
        if (Reserved(id.text)) return Error(id.offset, StrCat("reserved identifier: ", id.text));
        std::string name = id.text;
        int at = id.offset;
        ++pos_;
        if (IsPunct("(")) {
          ++pos_;
          auto args = ExprList(")");
          if (!args.ok()) return args.status();
          args->insert(args->begin(), std::move(e));
          auto call = ReceiverCall(std::move(name), at, std::move(*args));
          if (!call.ok()) return call;
          e = std::move(*call);
        } else {
          auto sel = Make(Kind::kSelect, at, Args(std::move(e)));
          if (!sel.ok()) return sel;
          (*sel)->name = std::move(name);
          e = std::move(*sel);
        }
      } else if (IsPunct("[")) {
        int at = Peek().offset;
        ++pos_;
        auto index = Expr();
        if (!index.ok()) return index;
        if (auto s = Expect("]"); !s.ok()) return s;
        auto idx = Make(Kind::kIndex, at, Args(std::move(e), std::move(*index)));
        if (!idx.ok()) return idx;
        e = std::move(*idx);
      } else {
        return e;
      }
    }
  }

  // Comma-separated expressions up to `close` (a trailing comma is allowed).
  absl::StatusOr<std::vector<ExprPtr>> ExprList(std::string_view close) {
    std::vector<ExprPtr> out;
    while (!IsPunct(close)) {
      auto e = Expr();
      if (!e.ok()) return e.status();
      out.push_back(std::move(*e));
      if (!Accept(",")) break;
    }
    if (auto s = Expect(close); !s.ok()) return s;
    return out;
  }

  // receiver.name(args): the comprehension macros, or a receiver call.
  StatusOrExpr ReceiverCall(std::string name, int at, std::vector<ExprPtr> args) {
    using Macro = CelExpr::Macro;
    static const std::pair<const char*, Macro> kMacros[] = {{"all", Macro::kAll},
                                                            {"exists", Macro::kExists},
                                                            {"exists_one", Macro::kExistsOne},
                                                            {"map", Macro::kMap},
                                                            {"filter", Macro::kFilter}};
    for (const auto& [macro_name, macro] : kMacros) {
      if (name != macro_name) continue;
      size_t n = args.size() - 1;  // without the receiver
      if (!(n == 2 || (n == 3 && macro == Macro::kMap))) break;
      if (args[1]->kind != Kind::kIdent) return Error(args[1]->offset, "argument must be a simple name");
      std::string var = args[1]->name;
      args.erase(args.begin() + 1);
      auto e = Make(Kind::kComprehension, at, std::move(args));
      if (!e.ok()) return e;
      (*e)->macro = macro;
      (*e)->name = std::move(var);
      return e;
    }
    auto e = Make(Kind::kCall, at, std::move(args));
    if (!e.ok()) return e;
    (*e)->receiver = true;
    (*e)->name = std::move(name);
    return e;
  }

  StatusOrExpr Literal(bool negative) {
    const CelToken& t = Peek();
    int at = t.offset;
    CelValue v;
    switch (t.kind) {
      case CelToken::Kind::kInt: {
        const uint64_t limit =
            static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + (negative ? 1 : 0);
        if (t.number > limit) return Error(at, "invalid int literal");
        v = negative ? CelValue::Int(static_cast<int64_t>(0 - t.number))
                     : CelValue::Int(static_cast<int64_t>(t.number));
        break;
      }
      case CelToken::Kind::kUint:
        v = CelValue::Uint(t.number);
        break;
      case CelToken::Kind::kDouble:
        v = CelValue::Double(negative ? -t.real : t.real);
        break;
      case CelToken::Kind::kString:
        v = CelValue::String(t.text);
        break;
      default:
        return Unexpected();
    }
    ++pos_;
    auto e = Make(Kind::kLiteral, at, {});
    if (e.ok()) (*e)->literal = std::move(v);
    return e;
  }

  // ["."] IDENT ["(" args ")"] | "(" Expr ")" | "[" list "]" | "{" map "}" | literal
  StatusOrExpr Primary() {
    const CelToken& t = Peek();
    int at = t.offset;
    if (t.kind == CelToken::Kind::kIdent || (IsPunct(".") && Peek(1).kind == CelToken::Kind::kIdent)) {
      if (IsPunct(".")) ++pos_;  // a leading dot names the root scope; there is only one here
      std::string name = Peek().text;
      at = Peek().offset;
      ++pos_;
      if (name == "true" || name == "false" || name == "null") {
        auto e = Make(Kind::kLiteral, at, {});
        if (e.ok()) (*e)->literal = name == "null" ? CelValue::Null() : CelValue::Bool(name == "true");
        return e;
      }
      if (Reserved(name)) return Error(at, StrCat("reserved identifier: ", name));
      if (!IsPunct("(")) {
        auto e = Make(Kind::kIdent, at, {});
        if (e.ok()) (*e)->name = std::move(name);
        return e;
      }
      ++pos_;
      auto args = ExprList(")");
      if (!args.ok()) return args.status();
      if (name == "has" && args->size() == 1) {
        if ((*args)[0]->kind != Kind::kSelect) return Error(at, "invalid argument to has() macro");
        ExprPtr sel = std::move((*args)[0]);
        auto e = Make(Kind::kHas, at, {});
        if (!e.ok()) return e;
        (*e)->name = std::move(sel->name);
        (*e)->args = std::move(sel->args);
        (*e)->height = sel->height;
        return e;
      }
      auto e = Make(Kind::kCall, at, std::move(*args));
      if (e.ok()) (*e)->name = std::move(name);
      return e;
    }
    if (Accept("(")) {
      auto e = Expr();
      if (!e.ok()) return e;
      if (auto s = Expect(")"); !s.ok()) return s;
      return e;
    }
    if (Accept("[")) {
      auto items = ExprList("]");
      if (!items.ok()) return items.status();
      return Make(Kind::kList, at, std::move(*items));
    }
    if (Accept("{")) {
      std::vector<ExprPtr> kv;
      while (!IsPunct("}")) {
        auto k = Expr();
        if (!k.ok()) return k;
        if (auto s = Expect(":"); !s.ok()) return s;
        auto v = Expr();
        if (!v.ok()) return v;
        kv.push_back(std::move(*k));
        kv.push_back(std::move(*v));
        if (!Accept(",")) break;
      }
      if (auto s = Expect("}"); !s.ok()) return s;
      return Make(Kind::kMap, at, std::move(kv));
    }
    return Literal(/*negative=*/false);
  }

  std::string_view src_;
  std::vector<CelToken> toks_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<CelExpr>> ParseCel(std::string_view source) {
  auto toks = LexCel(source);
  if (!toks.ok()) return toks.status();
  return Parser(source, std::move(*toks)).Run();
}

}  // namespace recon::cel
