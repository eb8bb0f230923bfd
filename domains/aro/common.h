// Names and small helpers shared by the aro controllers.
#ifndef RECON_DOMAINS_ARO_COMMON_H_
#define RECON_DOMAINS_ARO_COMMON_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/json.h"
#include "engine/world.h"

namespace recon::aro {

using engine::Json;

inline constexpr std::string_view kDomain = "aro";  // the domain's name in actions and the write tracker
inline constexpr std::string_view kAroGroup = "aro.openshift.io";
inline constexpr std::string_view kClusterKind = "Cluster";
inline constexpr std::string_view kClusterName = "cluster";
inline constexpr std::string_view kAzureGroup = "network.azure.com";
inline constexpr std::string_view kMachineGroup = "machine.openshift.io";
inline constexpr std::string_view kMachineApiNs = "openshift-machine-api";
inline constexpr std::string_view kRoleLabel = "machine.openshift.io/cluster-api-machine-role";

inline constexpr int64_t kSecond = 1'000'000'000;
inline constexpr int64_t kHour = 3600 * kSecond;
// How long a probe round may stay unanswered before it is closed: the
// upstream check takes at most 6 attempts x 10 s; the rest is slack.
inline constexpr int64_t kProbeRoundDeadline = 2 * 60 * kSecond;

std::string Lower(std::string_view s);
bool EqualFold(std::string_view a, std::string_view b);

// controller-runtime's per-item limiter: 5 ms * 2^failures, capped at 1000 s.
int64_t BackoffNs(int failures);

// The Cluster singleton, or null when not observed.
const engine::Object* GetCluster(const engine::World& world);

// "Mon, 02 Jan 2006 15:04:05 UTC" (Go's time.RFC1123 in UTC).
std::string FormatRfc1123(int64_t time_ns);

// A string field, "" when absent or not a string; never throws.
std::string Str(const Json& j, std::string_view key);
// A non-negative integer field, 0 when absent or not one. Signed or
// unsigned: a snapshot read back through simdjson gives signed integers.
uint64_t U64(const Json& j, std::string_view key);

}  // namespace recon::aro

#endif  // RECON_DOMAINS_ARO_COMMON_H_
