#include "store/etcd_keys.h"

#include <utility>

#include "base/strings.h"

namespace recon::store::etcd_keys {

std::string Hex(uint64_t v, int width) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(width, '0');
  for (int i = width - 1; i >= 0 && v; --i, v >>= 4) out[i] = kDigits[v & 0xf];
  return out;
}

bool ParseDecimal(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 19) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = v;
  return true;
}

std::optional<uint64_t> ParseHex(std::string_view s) {
  if (s.empty() || s.size() > 16) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return std::nullopt;
    v = v << 4 | static_cast<uint64_t>(d);
  }
  return v;
}

Compare ValueIs(std::string key, std::string value) {
  Compare c;
  c.key = std::move(key);
  c.value = std::move(value);
  return c;
}

Compare VersionIs(std::string key, int64_t version, Compare::Result result) {
  Compare c;
  c.key = std::move(key);
  c.target = Compare::Target::kVersion;
  c.result = result;
  c.number = version;
  return c;
}

std::string EventName(uint64_t seq) { return StrCat("e/", Hex16(seq)); }
std::string ActionName(uint64_t cause, uint32_t index) { return StrCat("a/", Hex16(cause), Hex(index, 8)); }

}  // namespace recon::store::etcd_keys
