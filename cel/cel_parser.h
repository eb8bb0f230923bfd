// Recursive-descent parser for CEL expressions (cel-spec langdef grammar:
// ?:, ||, &&, relations incl. `in`, + - * / %, unary ! and -, member
// access, index, calls and receiver calls, list and map literals; message
// construction is not supported). Macros are expanded into CelExpr kinds.
#ifndef RECON_CEL_CEL_PARSER_H_
#define RECON_CEL_CEL_PARSER_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "cel/cel_ast.h"

namespace recon::cel {

// Nesting deeper than this is a syntax error (cel-go's default limit too), so
// checking and evaluation recurse a bounded number of times.
inline constexpr int kCelMaxHeight = 250;

// Errors read "ERROR: <input>:1:5: Syntax error: ...".
absl::StatusOr<std::unique_ptr<CelExpr>> ParseCel(std::string_view source);

}  // namespace recon::cel

#endif  // RECON_CEL_CEL_PARSER_H_
