// Leader election on a coordination.k8s.io/v1 Lease, client-go's rules,
// as a state machine without I/O: the caller GETs the lease every retry
// period and hands the answer in; the elector says what to write (create,
// or update with the observed resourceVersion) and is told the outcome.
// Time comes from the caller (an injected clock), so tests drive it.
//
// Fencing: the lease's spec.leaseTransitions while we hold it is our term
// (the token every action carries). A write made under an older term than
// the current one is refused by the dispatcher.
#ifndef RECON_ADAPTERS_K8S_LEASE_H_
#define RECON_ADAPTERS_K8S_LEASE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace recon::k8s {

struct LeaseConfig {
  std::string identity;
  std::string ns = "default";
  std::string name = "recon";
  // controller-runtime's defaults.
  int64_t lease_duration_ns = 15'000'000'000;
  int64_t renew_deadline_ns = 10'000'000'000;
  int64_t retry_period_ns = 2'000'000'000;
};

struct LeaseRecord {
  std::string holder;
  int64_t duration_s = 0;
  std::string acquire_time, renew_time;  // MicroTime text
  int64_t transitions = 0;
  std::string resource_version;
};

// Reads spec.* and metadata.resourceVersion of a Lease object's JSON.
absl::Status ParseLease(std::string_view json, LeaseRecord* out);

class LeaderElector {
 public:
  enum class State { kFollower, kLeader, kLost };
  struct Write {
    bool create = false;  // POST; else PUT with the observed resourceVersion
    std::string body;     // the Lease object
  };

  explicit LeaderElector(LeaseConfig config) : config_(std::move(config)) {}

  // The lease as just read (nullopt: 404). Returns the write to attempt, or
  // nothing when another holder's lease is still live.
  std::optional<Write> Observe(const std::optional<LeaseRecord>& lease, int64_t now_ns);
  // Outcome of that write; on success `lease` is the server's answer.
  void WriteResult(bool ok, const std::optional<LeaseRecord>& lease, int64_t now_ns);
  // A leader that has not renewed within the renew deadline has lost.
  void Tick(int64_t now_ns);
  // Giving up on shutdown: holder cleared so another replica takes over at
  // once (client-go's ReleaseOnCancel). Nothing when not leading.
  std::optional<Write> Release(int64_t now_ns);

  State state() const { return state_; }
  bool leading() const { return state_ == State::kLeader; }
  // Our term (leaseTransitions) while leading; -1 otherwise.
  int64_t token() const { return state_ == State::kLeader ? term_ : -1; }
  // leaseTransitions as last observed, whoever holds it.
  int64_t observed_transitions() const { return observed_.transitions; }
  const std::string& observed_holder() const { return observed_.holder; }
  const std::string& lost_reason() const { return lost_reason_; }
  const LeaseConfig& config() const { return config_; }

 private:
  std::string Body(const LeaseRecord& r) const;
  void Lose(std::string reason);

  LeaseConfig config_;
  State state_ = State::kFollower;
  LeaseRecord observed_;
  bool have_observed_ = false;
  int64_t observed_ns_ = 0;  // local time the observed record last changed
  int64_t renewed_ns_ = 0;   // last successful acquire/renew
  int64_t term_ = -1;
  std::optional<LeaseRecord> pending_;  // what we tried to write
  std::string lost_reason_;
};

std::string FormatMicroTime(int64_t time_ns);

}  // namespace recon::k8s

#endif  // RECON_ADAPTERS_K8S_LEASE_H_
