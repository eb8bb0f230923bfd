#include "crd/formats.h"

#include <re2/re2.h>

#include <string_view>
#include <vector>

namespace recon::crd {
namespace {

// strfmt's DateTime layouts: RFC 3339 with optional fractions, a "Z" or a
// numeric offset with or without the colon, and ISO 8601 local times.
const re2::RE2& DateTime() {
  static const re2::RE2* re = new re2::RE2(
      R"(^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt ]([01]\d|2[0-3]):[0-5]\d(:([0-5]\d|60)(\.\d+)?)?([Zz]|[+-]([01]\d|2[0-3]):?[0-5]\d)?$)");
  return *re;
}

const re2::RE2& Date() {
  static const re2::RE2* re = new re2::RE2(R"(^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$)");
  return *re;
}

// strfmt's hostname (RFC 1123 labels of letters, digits and inner hyphens,
// non-ASCII letters allowed; with several labels the last is 2+ letters),
// checked by hand: the strfmt regex compiles into a program too big for
// RE2's DFA.
bool IsHostname(std::string_view s) {
  if (s.empty() || s.size() > 255) return false;
  auto alnum = [](unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
  };
  std::vector<std::string_view> labels;
  for (size_t start = 0;;) {
    size_t dot = s.find('.', start);
    labels.push_back(s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  for (std::string_view l : labels) {
    if (l.empty() || l.size() > 63 || !alnum(l.front()) || !alnum(l.back())) return false;
    for (unsigned char c : l)
      if (!alnum(c) && c != '-') return false;
  }
  if (labels.size() > 1) {
    std::string_view tld = labels.back();
    if (tld.size() < 2) return false;
    for (unsigned char c : tld)
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80)) return false;
  }
  return true;
}

const re2::RE2& Uuid() {
  static const re2::RE2* re =
      new re2::RE2(R"(^(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$)");
  return *re;
}

const re2::RE2& Ipv4() {
  static const re2::RE2* re =
      new re2::RE2(R"(^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$)");
  return *re;
}

// Go's url.ParseRequestURI: an absolute URI or an absolute path.
const re2::RE2& Uri() {
  static const re2::RE2* re = new re2::RE2(R"(^([a-zA-Z][a-zA-Z0-9+.-]*:[^\s]*|/[^\s]*)$)");
  return *re;
}

// base64.StdEncoding: padded, standard alphabet.
bool IsBase64(std::string_view s) {
  if (s.size() % 4 != 0) return false;
  size_t pad = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '=') {
      ++pad;
      if (i + 2 < s.size()) return false;
      continue;
    }
    if (pad) return false;
    bool ok =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
    if (!ok) return false;
  }
  return pad <= 2;
}

bool Full(std::string_view s, const re2::RE2& re) {
  return re2::RE2::FullMatch(re2::StringPiece(s.data(), s.size()), re);
}

}  // namespace

bool IsCheckedFormat(std::string_view f) {
  return f == "date-time" || f == "date" || f == "byte" || f == "hostname" || f == "uri" || f == "uuid" ||
         f == "ipv4";
}

bool MatchesFormat(std::string_view f, std::string_view s) {
  if (f == "date-time") return Full(s, DateTime());
  if (f == "date") return Full(s, Date());
  if (f == "byte") return IsBase64(s);
  if (f == "hostname") return IsHostname(s);
  if (f == "uri") return Full(s, Uri());
  if (f == "uuid") return Full(s, Uuid());
  if (f == "ipv4") return Full(s, Ipv4());
  return true;
}

}  // namespace recon::crd
