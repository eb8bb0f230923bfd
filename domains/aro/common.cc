#include "domains/aro/common.h"

#include <algorithm>
#include <cctype>

#include "absl/time/time.h"

namespace recon::aro {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool EqualFold(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

int64_t BackoffNs(int failures) {
  constexpr int64_t kBase = 5'000'000;  // 5 ms
  constexpr int64_t kCap = 1000 * kSecond;
  int64_t d = kBase;
  for (int i = 0; i < failures; ++i) {
    d *= 2;
    if (d >= kCap) return kCap;
  }
  return d;
}

const engine::Object* GetCluster(const engine::World& world) {
  return world.Get(kAroGroup, kClusterKind, "", kClusterName);
}

std::string FormatRfc1123(int64_t time_ns) {
  return absl::FormatTime("%a, %d %b %Y %H:%M:%S UTC", absl::FromUnixNanos(time_ns), absl::UTCTimeZone());
}

std::string Str(const Json& j, std::string_view key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

uint64_t U64(const Json& j, std::string_view key) {
  if (!j.is_object()) return 0;
  auto it = j.find(key);
  if (it == j.end()) return 0;
  if (it->is_number_unsigned()) return it->get<uint64_t>();
  if (it->is_number_integer() && it->get<int64_t>() >= 0) return static_cast<uint64_t>(it->get<int64_t>());
  return 0;
}

}  // namespace recon::aro
