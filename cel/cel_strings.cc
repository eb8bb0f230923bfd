#include "cel/cel_strings.h"

#include <string>
#include <utility>
#include <vector>

#include "base/strings.h"

namespace recon::cel {
namespace {

using K = CelType::Kind;
using V = CelValue;
using Args = std::vector<V>;

CelType T(K k) { return CelType::Of(k); }

// UTF-8 sequence starting at s[i] (a lone or invalid byte counts as one).
size_t RuneLength(const std::string& s, size_t i) {
  unsigned char c = s[i];
  size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
  return i + n <= s.size() ? n : 1;
}

// Go's strings.Split: an empty separator splits into UTF-8 sequences.
V Split(const std::string& s, const std::string& sep) {
  V::List out;
  if (sep.empty()) {
    for (size_t i = 0; i < s.size();) {
      size_t n = RuneLength(s, i);
      out.push_back(V::String(s.substr(i, n)));
      i += n;
    }
    return V::MakeList(std::move(out));
  }
  size_t start = 0;
  for (size_t pos; (pos = s.find(sep, start)) != std::string::npos; start = pos + sep.size())
    out.push_back(V::String(s.substr(start, pos - start)));
  out.push_back(V::String(s.substr(start)));
  return V::MakeList(std::move(out));
}

absl::StatusOr<V> Join(const V& list, const std::string& sep) {
  std::string out;
  bool first = true;
  for (const V& x : list.AsList()) {
    if (!x.is(V::Kind::kString)) return absl::InvalidArgumentError("no such overload: join");
    if (!first) out += sep;
    out += x.AsString();
    first = false;
  }
  return V::String(std::move(out));
}

std::string MapAscii(std::string s, bool upper) {
  for (char& c : s) {
    if (upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (!upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

// Go's strings.TrimSpace (ASCII white space and the common Unicode ones
// Kubernetes rules meet are ASCII).
std::string TrimSpace(const std::string& s) {
  auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
  };
  size_t b = 0, e = s.size();
  while (b < e && space(s[b])) ++b;
  while (e > b && space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

std::string ReplaceAll(const std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  std::string out;
  size_t start = 0;
  for (size_t pos; (pos = s.find(from, start)) != std::string::npos; start = pos + from.size()) {
    out.append(s, start, pos - start);
    out += to;
  }
  out.append(s, start, std::string::npos);
  return out;
}

// Index in code points of the first occurrence, -1 when absent.
int64_t IndexOf(const std::string& s, const std::string& t) {
  size_t pos = s.find(t);
  if (pos == std::string::npos) return -1;
  int64_t n = 0;
  for (size_t i = 0; i < pos; ++i) n += (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
  return n;
}

}  // namespace

void AddStringsExtension(CelEnv& env) {
  const CelType str = T(K::kString), list_str = CelType::List(T(K::kString));
  env.AddFunction({"split", true, {str, str}, list_str, [](const Args& a) -> absl::StatusOr<V> {
                     return Split(a[0].AsString(), a[1].AsString());
                   }});
  env.AddFunction({"join", true, {list_str}, str, [](const Args& a) { return Join(a[0], ""); }});
  env.AddFunction(
      {"join", true, {list_str, str}, str, [](const Args& a) { return Join(a[0], a[1].AsString()); }});
  env.AddFunction({"lowerAscii", true, {str}, str, [](const Args& a) -> absl::StatusOr<V> {
                     return V::String(MapAscii(a[0].AsString(), false));
                   }});
  env.AddFunction({"upperAscii", true, {str}, str, [](const Args& a) -> absl::StatusOr<V> {
                     return V::String(MapAscii(a[0].AsString(), true));
                   }});
  env.AddFunction({"trim", true, {str}, str, [](const Args& a) -> absl::StatusOr<V> {
                     return V::String(TrimSpace(a[0].AsString()));
                   }});
  env.AddFunction({"replace", true, {str, str, str}, str, [](const Args& a) -> absl::StatusOr<V> {
                     return V::String(ReplaceAll(a[0].AsString(), a[1].AsString(), a[2].AsString()));
                   }});
  env.AddFunction({"indexOf", true, {str, str}, T(K::kInt), [](const Args& a) -> absl::StatusOr<V> {
                     return V::Int(IndexOf(a[0].AsString(), a[1].AsString()));
                   }});
}

}  // namespace recon::cel
