// The ClusterOperator `openshift-samples` status derived from the Config
// (reference §15): Degraded, Available, Progressing with upstream's reasons.
#ifndef RECON_DOMAINS_SAMPLES_CLUSTEROPERATOR_H_
#define RECON_DOMAINS_SAMPLES_CLUSTEROPERATOR_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/json.h"

namespace recon::samples {

using engine::Json;

struct CoCondition {
  std::string type, status, reason, message;
};

struct CoDesired {
  std::vector<CoCondition> conditions;  // Degraded, Available, Progressing
  std::string version;                  // "" = leave versions alone
  bool degraded = false;
  bool special = false;  // deletion / unsupported arch / TBR: metric untouched
};

struct CoInputs {
  bool deletion = false;
  bool tbr_unreachable = false;
  std::string operator_version;                // V
  std::vector<std::string> active_configmaps;  // sorted, ist→image excluded
};

// `status` is the Config status being worked on: like upstream, reading a
// missing SamplesExist creates it (False) in that copy.
CoDesired ComputeClusterOperator(const Json& spec, Json& status, const CoInputs& in, int64_t now_ns);

// Applies `desired` onto the observed CO status (null or without
// conditions: the CO was just created, its status never written).
// Returns whether anything a client sees changed; `out` is the new status.
bool MergeClusterOperator(const Json& observed_status, const CoDesired& desired, int64_t now_ns, Json* out);

// Upstream's Go time.String() of a metav1.Time: "2026-11-21 10:00:00 +0000 UTC".
std::string GoTimeString(std::string_view rfc3339);

}  // namespace recon::samples

#endif  // RECON_DOMAINS_SAMPLES_CLUSTEROPERATOR_H_
