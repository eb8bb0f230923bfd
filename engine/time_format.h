// RFC 3339 times as used in JSONL and in Kubernetes objects. Reducers get
// time only from events; these helpers convert, they never read a clock.
#ifndef RECON_ENGINE_TIME_FORMAT_H_
#define RECON_ENGINE_TIME_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace recon::engine {

// Accepts "2026-11-21T10:00:00Z", fractional seconds and numeric offsets.
absl::StatusOr<int64_t> ParseRfc3339(std::string_view text);
// UTC with as many fractional digits as needed ("...:00Z", "...:00.5Z").
std::string FormatRfc3339(int64_t time_ns);
// UTC truncated to the second, as Kubernetes writes lastTransitionTime.
std::string FormatRfc3339Seconds(int64_t time_ns);
// "10:02:11" (UTC), for timelines.
std::string FormatClock(int64_t time_ns);
// Go-style durations: "10m", "1h30m", "45s", "0s", "500ms".
absl::StatusOr<int64_t> ParseDurationNs(std::string_view text);

}  // namespace recon::engine

#endif  // RECON_ENGINE_TIME_FORMAT_H_
