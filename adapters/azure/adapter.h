// The Azure side of a live cluster: wraps the Kubernetes adapter (the
// cluster's objects, timers, other probes) and serves the network.azure.com
// objects from ARM. Reads: when the poll timer (aro/subnets) fires, every
// resource the domains need (`reads`, a pure function of the world from the
// domain) is fetched, and the objects whose etag changed are delivered
// before the timer event, so the round that timer starts sees them; a
// first read runs once the cluster's lists are in. Writes (update of a
// Subnet/NSG) are PUTs with If-Match = the object's resourceVersion (the
// etag); when the PUT (and its long-running operation) ends, the resource
// is read again and its new state delivered before the ActionResult, so no
// round decides on the pre-write object. The service-principal probe
// (aro/serviceprincipal) is a fresh AAD token request for its scope.
//
// Objects: network.azure.com/v1 Subnet / NetworkSecurityGroup,
// metadata.name = the ARM ID as returned, metadata.resourceVersion = the
// etag, spec = properties (DESIGN.md).
#ifndef RECON_ADAPTERS_AZURE_ADAPTER_H_
#define RECON_ADAPTERS_AZURE_ADAPTER_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "adapters/azure/arm_client.h"
#include "adapters/azure/credentials.h"
#include "adapters/http/io_loop.h"
#include "runtime/cluster_adapter.h"
#include "runtime/metrics.h"
#include "runtime/time_source.h"

namespace recon::azure {

inline constexpr std::string_view kAzureGroup = "network.azure.com";

struct ArmRef {
  std::string kind;  // Subnet, NetworkSecurityGroup
  std::string id;
};

struct AzureOptions {
  ArmOptions arm;
  // --azure-credentials; unset: the Secret kube-system/azure-credentials
  // as the Kubernetes adapter observes it.
  std::optional<Credentials> credentials;
  // --azure-credentials env with no complete source: every token request
  // fails with this (DefaultAzureCredential's error), and the cluster's
  // Secret is not read either (the operator's environment is fixed).
  std::string credentials_error;
  std::function<std::vector<ArmRef>(const engine::World&)> reads;
  std::string poll_timer = "aro/subnets";
  std::string sp_probe = "aro/serviceprincipal";
};

class AzureClusterAdapter : public runtime::ClusterAdapter {
 public:
  AzureClusterAdapter(runtime::ClusterAdapter& inner, AzureOptions options, const runtime::TimeSource& clock,
                      runtime::Metrics* metrics);
  ~AzureClusterAdapter() override;

  std::string_view Name() const override { return "k8s+arm"; }
  // Keeps `last_seen`: it is the runtime's world, read in Poll (the
  // runtime's thread) to compute the reads.
  absl::StatusOr<std::vector<records::EventRecord>> Start(const engine::World& last_seen) override;
  void Apply(const records::ActionRecord& action) override;
  std::vector<records::EventRecord> Poll(int64_t now_ns) override;
  // The poll timer starts a round of ARM reads and is delivered after them.
  std::vector<records::EventRecord> TimersDue(std::vector<records::EventRecord> due) override;
  std::optional<int64_t> NextDueNs() const override;
  bool HasPendingWork() const override;
  void SetWakeup(std::function<void()> wake) override;
  void SetSeenUnchanged(WantedType wanted, SeenUnchanged seen) override;
  bool Ready() const override { return inner_.Ready(); }
  absl::Status Health() const override { return inner_.Health(); }
  void Shutdown() override;

  // --- for tests ---
  uint64_t polls() const { return polls_.load(); }
  // Makes the runtime poll now (after a test moved its clock).
  void Kick() { Wake(); }
  uint64_t token_requests() const;

 private:
  struct Known {
    std::string name;  // as ARM returned it
    std::string kind;
    std::string etag;  // "" after a 404
  };
  void TakeCredentials(const std::vector<records::EventRecord>& events);  // runtime thread
  // Starts a round of reads for `timers` (delivered after it), or, with one
  // running, holds them for the running round's end. Runtime thread.
  void PollRound(std::vector<records::EventRecord> timers);
  void StartPoll(std::vector<ArmRef> refs, std::vector<records::EventRecord> held);
  // The object event for a GET answer, if it changed (loop thread).
  std::optional<records::EventRecord> Observe(const ArmRef& ref, const ArmResult& r);
  void Write(records::ActionRecord a);
  void Probe(records::ActionRecord a);
  void Deliver(std::vector<records::EventRecord> events, bool done_one);
  void Wake();

  runtime::ClusterAdapter& inner_;
  AzureOptions options_;
  const runtime::TimeSource& clock_;
  runtime::Metrics* metrics_;
  http::IoLoop loop_;
  std::unique_ptr<ArmClient> arm_;  // loop thread
  const engine::World* world_ = nullptr;
  bool started_ = false, first_read_ = false;
  std::atomic<bool> shut_down_{false};
  std::optional<Credentials> secret_creds_;  // runtime thread: last taken from the Secret
  std::map<std::string, Known> known_;       // loop thread: lower-cased ID → last delivered

  mutable std::mutex mu_;
  std::vector<records::EventRecord> out_;
  std::function<void()> wake_;
  int64_t pending_ = 0;  // writes, probes and polls without an answer yet
  bool poll_running_ = false;
  std::vector<records::EventRecord> held_timers_;  // poll timers that came during a poll
  std::atomic<uint64_t> polls_{0};
};

}  // namespace recon::azure

#endif  // RECON_ADAPTERS_AZURE_ADAPTER_H_
