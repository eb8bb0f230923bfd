#include "cel/cel_lexer.h"

#include <charconv>
#include <limits>

#include "base/strings.h"

namespace recon::cel {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c); }
int HexValue(char c) { return IsDigit(c) ? c - '0' : (c | 0x20) - 'a' + 10; }

void AppendUtf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xC0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xE0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) {}

  absl::StatusOr<std::vector<CelToken>> Run() {
    std::vector<CelToken> out;
    while (true) {
      SkipSpaceAndComments();
      CelToken t;
      t.offset = static_cast<int>(pos_);
      if (pos_ >= src_.size()) {
        out.push_back(std::move(t));
        return out;
      }
      absl::Status s = Next(&t);
      if (!s.ok()) return s;
      out.push_back(std::move(t));
    }
  }

 private:
  char At(size_t i) const { return i < src_.size() ? src_[i] : '\0'; }
  absl::Status Error(size_t at, std::string_view msg) const {
    return CelErrorAt(src_, static_cast<int>(at), StrCat("Syntax error: ", msg));
  }

  void SkipSpaceAndComments() {
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        ++pos_;
      } else if (c == '/' && At(pos_ + 1) == '/') {
        while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
      } else {
        return;
      }
    }
  }

  absl::Status Next(CelToken* t) {
    char c = src_[pos_];
    if (IsDigit(c) || (c == '.' && IsDigit(At(pos_ + 1)))) return Number(t);
    // String prefixes: r/R (raw) and b/B (bytes), in either order.
    size_t p = pos_;
    bool raw = false, bytes = false;
    for (int k = 0; k < 2 && (At(p) == 'r' || At(p) == 'R' || At(p) == 'b' || At(p) == 'B'); ++k, ++p) {
      bool r = At(p) == 'r' || At(p) == 'R';
      if (r ? raw : bytes) break;
      (r ? raw : bytes) = true;
    }
    if (At(p) == '"' || At(p) == '\'') {
      if (bytes) return Error(pos_, "bytes literals are not supported");
      pos_ = p;
      return String(t, raw);
    }
    if (IsIdentStart(c)) {
      size_t start = pos_;
      while (pos_ < src_.size() && IsIdentChar(src_[pos_])) ++pos_;
      t->kind = CelToken::Kind::kIdent;
      t->text = std::string(src_.substr(start, pos_ - start));
      return absl::OkStatus();
    }
    static const char* const kTwo[] = {"==", "!=", "<=", ">=", "&&", "||"};
    for (const char* op : kTwo) {
      if (src_.substr(pos_, 2) == op) {
        t->kind = CelToken::Kind::kPunct;
        t->text = op;
        pos_ += 2;
        return absl::OkStatus();
      }
    }
    if (std::string_view("<>!+-*/%?:.,()[]{}").find(c) != std::string_view::npos) {
      t->kind = CelToken::Kind::kPunct;
      t->text = std::string(1, c);
      ++pos_;
      return absl::OkStatus();
    }
    return Error(pos_, StrCat("token recognition error at: '", std::string(1, c), "'"));
  }

  absl::Status Number(CelToken* t) {
    size_t start = pos_;
    if (src_[pos_] == '0' && (At(pos_ + 1) == 'x' || At(pos_ + 1) == 'X') && IsHex(At(pos_ + 2))) {
      pos_ += 2;
      size_t digits = pos_;
      while (IsHex(At(pos_))) ++pos_;
      return Integer(t, start, src_.substr(digits, pos_ - digits), 16);
    }
    while (IsDigit(At(pos_))) ++pos_;
    bool real = false;
    if (At(pos_) == '.' && IsDigit(At(pos_ + 1))) {
      real = true;
      ++pos_;
      while (IsDigit(At(pos_))) ++pos_;
    }
    size_t e = pos_;
    if (At(e) == 'e' || At(e) == 'E') {
      ++e;
      if (At(e) == '+' || At(e) == '-') ++e;
      if (IsDigit(At(e))) {
        real = true;
        while (IsDigit(At(e))) ++e;
        pos_ = e;
      }
    }
    if (!real) return Integer(t, start, src_.substr(start, pos_ - start), 10);
    std::string text(src_.substr(start, pos_ - start));
    double d = 0;
    auto r = std::from_chars(text.data(), text.data() + text.size(), d);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size()) {
      return Error(start, StrCat("invalid double literal: ", text));
    }
    t->kind = CelToken::Kind::kDouble;
    t->real = d;
    return absl::OkStatus();
  }

  absl::Status Integer(CelToken* t, size_t start, std::string_view digits, int base) {
    uint64_t v = 0;
    auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
    bool u = At(pos_) == 'u' || At(pos_) == 'U';
    if (u) ++pos_;
    if (r.ec != std::errc())
      return Error(start, StrCat("invalid int literal: ", src_.substr(start, pos_ - start)));
    t->kind = u ? CelToken::Kind::kUint : CelToken::Kind::kInt;
    t->number = v;
    return absl::OkStatus();
  }

  absl::Status String(CelToken* t, bool raw) {
    size_t start = pos_;
    char q = src_[pos_];
    bool triple = At(pos_ + 1) == q && At(pos_ + 2) == q;
    pos_ += triple ? 3 : 1;
    std::string out;
    while (true) {
      if (pos_ >= src_.size()) return Error(start, "unterminated string literal");
      char c = src_[pos_];
      if (c == q && (!triple || (At(pos_ + 1) == q && At(pos_ + 2) == q))) {
        pos_ += triple ? 3 : 1;
        break;
      }
      if (!triple && (c == '\n' || c == '\r')) return Error(start, "unterminated string literal");
      if (c != '\\' || raw) {
        out += c;
        ++pos_;
        continue;
      }
      absl::Status s = Escape(&out);
      if (!s.ok()) return s;
    }
    t->kind = CelToken::Kind::kString;
    t->text = std::move(out);
    return absl::OkStatus();
  }

  // One escape sequence at pos_ (the backslash).
  absl::Status Escape(std::string* out) {
    size_t at = pos_;
    char e = At(pos_ + 1);
    pos_ += 2;
    switch (e) {
      case 'a':
        *out += '\a';
        return absl::OkStatus();
      case 'b':
        *out += '\b';
        return absl::OkStatus();
      case 'f':
        *out += '\f';
        return absl::OkStatus();
      case 'n':
        *out += '\n';
        return absl::OkStatus();
      case 'r':
        *out += '\r';
        return absl::OkStatus();
      case 't':
        *out += '\t';
        return absl::OkStatus();
      case 'v':
        *out += '\v';
        return absl::OkStatus();
      case '\\':
      case '\'':
      case '"':
      case '`':
      case '?':
        *out += e;
        return absl::OkStatus();
      default:
        break;
    }
    int n = 0, base = 16;
    if (e == 'x' || e == 'X') {
      n = 2;
    } else if (e == 'u') {
      n = 4;
    } else if (e == 'U') {
      n = 8;
    } else if (e >= '0' && e <= '3') {
      n = 3;  // \ooo: the first digit is part of the value
      base = 8;
      --pos_;
    } else {
      return Error(at, "invalid escape sequence");
    }
    uint32_t cp = 0;
    for (int k = 0; k < n; ++k) {
      char d = At(pos_);
      bool ok = base == 16 ? IsHex(d) : (d >= '0' && d <= '7');
      if (!ok) return Error(at, "invalid escape sequence");
      cp = cp * base + HexValue(d);
      ++pos_;
    }
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return Error(at, "invalid unicode code point");
    AppendUtf8(out, cp);
    return absl::OkStatus();
  }

  std::string_view src_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<std::vector<CelToken>> LexCel(std::string_view source) { return Lexer(source).Run(); }

absl::Status CelErrorAt(std::string_view source, int offset, std::string_view message) {
  int line = 1, col = 1;
  for (int i = 0; i < offset && i < static_cast<int>(source.size()); ++i) {
    if (source[i] == '\n') {
      ++line;
      col = 1;
    } else if ((static_cast<unsigned char>(source[i]) & 0xC0) != 0x80) {
      ++col;  // columns count code points, not bytes
    }
  }
  return absl::InvalidArgumentError(StrCat("ERROR: <input>:", line, ":", col, ": ", message));
}

}  // namespace recon::cel
