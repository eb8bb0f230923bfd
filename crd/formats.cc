#include "crd/formats.h"

#include <re2/re2.h>

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

// strfmt's hostname: RFC 1123 labels, at most 255 characters.
const re2::RE2& Hostname() {
  static const re2::RE2* re = new re2::RE2(
      R"(^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$)");
  return *re;
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
  if (f == "hostname") return s.size() <= 255 && Full(s, Hostname());
  if (f == "uri") return Full(s, Uri());
  if (f == "uuid") return Full(s, Uuid());
  if (f == "ipv4") return Full(s, Ipv4());
  return true;
}

}  // namespace recon::crd
