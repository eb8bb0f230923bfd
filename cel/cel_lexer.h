// Tokens of CEL source text (cel-spec langdef "Syntax"): identifiers,
// int/uint/double/string literals with every escape form, operators and
// punctuation; `//` comments and whitespace are skipped.
#ifndef RECON_CEL_CEL_LEXER_H_
#define RECON_CEL_CEL_LEXER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace recon::cel {

struct CelToken {
  enum class Kind : uint8_t { kEnd, kIdent, kInt, kUint, kDouble, kString, kPunct };
  Kind kind = Kind::kEnd;
  int offset = 0;
  std::string text;     // identifier, punctuation, or the decoded string
  uint64_t number = 0;  // kInt: magnitude (the sign is a separate '-'); kUint: value
  double real = 0;      // kDouble
};

// The whole source as tokens, ending with one kEnd token.
absl::StatusOr<std::vector<CelToken>> LexCel(std::string_view source);

// "ERROR: <input>:LINE:COLUMN: message", cel-go's way of naming a place.
absl::Status CelErrorAt(std::string_view source, int offset, std::string_view message);

}  // namespace recon::cel

#endif  // RECON_CEL_CEL_LEXER_H_
