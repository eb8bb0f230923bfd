#include "adapters/sim/probes.h"

namespace recon::sim {

records::EventRecord ProbeModel::Answer(std::string_view probe, std::string_view target,
                                        int64_t now_ns) const {
  records::EventRecord e;
  e.type = records::EventType::kProbe;
  e.probe.name = probe;
  e.probe.target = target;
  int64_t since_start = now_ns - start_ns_;
  const ProbeRule* rule = nullptr;
  for (const auto& r : rules_) {
    if (!r.probe.empty() && r.probe != probe) continue;
    if (!r.target.empty() && r.target != target) continue;
    if (since_start < r.after_ns || (r.before_ns >= 0 && since_start >= r.before_ns)) continue;
    rule = &r;
    break;
  }
  int64_t latency = default_latency_ns_;
  if (rule != nullptr) {
    e.probe.ok = rule->ok;
    e.probe.status = rule->status;
    if (rule->ok && !rule->status) e.probe.status = 200;
    e.probe.detail = rule->detail;
    if (!rule->ok && rule->detail.empty() && !rule->status) e.probe.detail = "dial tcp: i/o timeout";
    if (!rule->data.is_null()) e.probe.data = engine::Dump(rule->data);
    if (rule->latency_ns) latency = *rule->latency_ns;
  } else if (disconnected_) {
    e.probe.ok = false;
    e.probe.detail = "dial tcp: i/o timeout";
  } else {
    e.probe.ok = true;
    e.probe.status = 200;
  }
  e.time_ns = now_ns + latency;
  return e;
}

}  // namespace recon::sim
