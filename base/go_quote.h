// Go's strconv.Quote for the strings error messages quote, as the real
// servers and tools print them (%q): quotes, backslashes, \n \r \t and
// other control bytes escaped; printable ASCII and UTF-8 kept as they are.
#ifndef RECON_BASE_GO_QUOTE_H_
#define RECON_BASE_GO_QUOTE_H_

#include <string>
#include <string_view>

namespace recon {

inline std::string GoQuote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += "\\x";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace recon

#endif  // RECON_BASE_GO_QUOTE_H_
