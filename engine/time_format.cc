#include "base/strings.h"
#include "engine/time_format.h"

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace recon::engine {

absl::StatusOr<int64_t> ParseRfc3339(std::string_view text) {
  absl::Time t;
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, std::string(text), &t, &err)) {
    return absl::InvalidArgumentError(
        recon::StrCat("expected an RFC 3339 time like 2026-11-21T10:00:00Z, got \"", text, "\""));
  }
  return absl::ToUnixNanos(t);
}

std::string FormatRfc3339(int64_t time_ns) {
  return absl::FormatTime("%Y-%m-%d%ET%H:%M:%E*SZ", absl::FromUnixNanos(time_ns), absl::UTCTimeZone());
}

std::string FormatRfc3339Seconds(int64_t time_ns) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::FromUnixNanos(time_ns), absl::UTCTimeZone());
}

std::string FormatClock(int64_t time_ns) {
  return absl::FormatTime("%H:%M:%S", absl::FromUnixNanos(time_ns), absl::UTCTimeZone());
}

absl::StatusOr<int64_t> ParseDurationNs(std::string_view text) {
  absl::Duration d;
  if (!absl::ParseDuration(Av(text), &d) || d < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        recon::StrCat("expected a duration like 10m, 1h30m or 0s, got \"", text, "\""));
  }
  return absl::ToInt64Nanoseconds(d);
}

}  // namespace recon::engine
