// The syntax tree of a parsed CEL expression (cel_parser.h builds it,
// cel_check.h types it, cel_eval.h runs it). Macros (has, all, exists,
// exists_one, map, filter) are expanded by the parser into their own node
// kinds, like cel-go does, so the later stages never see them as calls.
#ifndef RECON_CEL_CEL_AST_H_
#define RECON_CEL_CEL_AST_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cel/cel_value.h"

namespace re2 {
class RE2;
}

namespace recon::cel {

struct CelExpr {
  enum class Kind : uint8_t {
    kLiteral,        // literal
    kIdent,          // name
    kSelect,         // args[0].name
    kHas,            // has(args[0].name)
    kIndex,          // args[0][args[1]]
    kCall,           // name(args...), or args[0].name(args[1..]) when receiver
    kList,           // [args...]
    kMap,            // {args[0]: args[1], args[2]: args[3], ...}
    kUnary,          // op args[0]
    kBinary,         // args[0] op args[1] (not && / ||)
    kAnd,            // args[0] && args[1]
    kOr,             // args[0] || args[1]
    kConditional,    // args[0] ? args[1] : args[2]
    kComprehension,  // args[0].macro(name, args[1] [, args[2]])
  };
  enum class Op : uint8_t { kNot, kNeg, kEq, kNe, kLt, kLe, kGt, kGe, kIn, kAdd, kSub, kMul, kDiv, kMod };
  // map with three arguments is "filter, then transform": args[1] filters, args[2] maps.
  enum class Macro : uint8_t { kAll, kExists, kExistsOne, kMap, kFilter };

  Kind kind = Kind::kLiteral;
  Op op = Op::kNot;
  Macro macro = Macro::kAll;
  bool receiver = false;  // kCall: args[0] is the receiver
  int offset = 0;         // byte offset in the source, for messages
  int height = 1;         // of this subtree; the parser bounds it, so recursive passes cannot overflow
  CelValue literal;
  std::string name;  // identifier, field, function or iteration variable
  std::vector<std::unique_ptr<CelExpr>> args;
  // kCall `matches` with a literal pattern: compiled once, by
  // CelProgram::Compile, and kept even when it does not compile (the
  // error is an evaluation error, as in cel-go without regex optimization).
  std::shared_ptr<const re2::RE2> regex;
};

// "==", "in", "!" ... as written in CEL.
inline const char* CelOpText(CelExpr::Op op) {
  static const char* const kText[] = {"!",  "-",  "==", "!=", "<", "<=", ">",
                                      ">=", "in", "+",  "-",  "*", "/",  "%"};
  return kText[static_cast<int>(op)];
}

}  // namespace recon::cel

#endif  // RECON_CEL_CEL_AST_H_
