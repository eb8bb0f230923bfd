// The live cluster behind the engine's ClusterAdapter: reflectors turn
// list/watch into events, actions become REST calls, setTimer and probe are
// served here, and a Lease elects one acting replica. All network work runs
// on the adapter's own I/O thread (IoLoop); the runtime's thread only
// exchanges queues with it and is woken through the wakeup hook.
#ifndef RECON_ADAPTERS_K8S_ADAPTER_H_
#define RECON_ADAPTERS_K8S_ADAPTER_H_

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "adapters/http/http_client.h"
#include "adapters/http/io_loop.h"
#include "adapters/http/paced_client.h"
#include "adapters/k8s/backoff.h"
#include "adapters/k8s/kubeconfig.h"
#include "adapters/k8s/lease.h"
#include "adapters/k8s/paths.h"
#include "adapters/k8s/reflector.h"
#include "engine/resource.h"
#include "records/record.h"
#include "runtime/cluster_adapter.h"
#include "runtime/time_source.h"

namespace recon::k8s {

struct K8sOptions {
  RestConfig rest;
  // What the enabled domains watch and write; `domains` names who needs a
  // type ("plural.group" → "samples, olm") for the startup error.
  std::vector<engine::ResourceUse> resources;
  std::map<std::string, std::string> domains;
  // API groups the cluster may not serve: group → what the domains cannot
  // do without it (logged at start). Their missing types are not watched
  // instead of failing the start (aro's network.azure.com without --azure).
  std::map<std::string, std::string> optional_groups;
  bool leader_election = true;  // off: act at once with term 0 (tests)
  // The fieldManager every write names (metadata.managedFields[].manager):
  // `recon agent --field-manager`; an acting agent may play another
  // operator's manager beside a shadow agent (issue 21).
  std::string field_manager = "recon";
  LeaseConfig lease;
  http::PaceOptions api;
  ReflectorOptions reflector;
  uint64_t seed = 1;  // jitter
  // Probes through the sim's endpoint: GET <probe_via>/recon-sim/v1/probe?name=&target=.
  std::string probe_via;
  int64_t probe_timeout_ms = 10'000;
  int64_t start_timeout_ms = 120'000;  // discovery + first lists
  // Given to the log at Start before the lists (Content inputs), and the
  // Cluster event after them (facts, with the options the agent runs with).
  std::vector<records::EventRecord> preamble;
  std::string cluster_facts;  // JSON object; "" for none
  // Domain inputs that live outside the cluster (an OLM catalog's files; a
  // CatalogSource's registry has no API object to watch). Re-read every
  // content_poll_ms (0: only the preamble's copy): a new digest becomes a
  // Content event of the same name, as a registry poll finds an update.
  struct ContentSource {
    std::string name;
    std::function<absl::StatusOr<records::ContentFiles>()> load;
  };
  std::vector<ContentSource> content_sources;
  int64_t content_poll_ms = 0;
};

class K8sClusterAdapter : public runtime::ClusterAdapter {
 public:
  // `clock` stamps the events and paces everything on the adapter's loop:
  // the rate limit, Retry-After, backoff, lease renewal, content polls.
  K8sClusterAdapter(K8sOptions options, const runtime::TimeSource& clock);
  ~K8sClusterAdapter() override;

  std::string_view Name() const override { return "k8s"; }
  absl::StatusOr<std::vector<records::EventRecord>> Start(const engine::World& last_seen) override;
  void Apply(const records::ActionRecord& action) override;
  std::vector<records::EventRecord> Poll(int64_t now_ns) override;
  std::optional<int64_t> NextDueNs() const override;
  bool HasPendingWork() const override;
  void SetWakeup(std::function<void()> wake) override;
  void SetSeenUnchanged(WantedType wanted, SeenUnchanged seen) override;
  bool Ready() const override;
  absl::Status Health() const override;
  void Shutdown() override;

  // --- for tests ---
  bool leading() const { return leading_.load(); }
  int64_t term() const { return term_.load(); }
  // Stops renewing the lease (a hung leader) / holds writes before they
  // are sent (a queue that drains late).
  void PauseLeaseRenewal(bool pause);
  void HoldWrites(bool hold);
  // The clock was moved by hand (a ManualTimeSource): the loop's timers now
  // due fire.
  void ClockMoved() { loop_.ClockMoved(); }
  const Reflector* reflector(std::string_view plural) const;
  uint64_t refused_writes() const { return refused_.load(); }
  // Lease steps done (each ends by setting the timer of the next).
  uint64_t lease_rounds() const { return lease_rounds_.load(); }
  uint64_t requests_sent() const { return sent_.load(); }
  // Requests the rate limit let out so far (retries included).
  uint64_t requests_launched() const { return api_ ? api_->sent() : 0; }
  // Answers (429, a 5xx with Retry-After) whose request waits to go again.
  uint64_t requests_retried() const { return api_ ? api_->retried() : 0; }

 private:
  struct Write {
    records::ActionRecord action;
    int64_t term;  // the lease term the action was issued under; -1: not leading yet
  };
  absl::Status Discover();  // retries while the server is unavailable
  absl::Status DiscoverOnce();
  // (group, kind) of optional types the cluster does not serve: not watched.
  std::set<std::pair<std::string, std::string>> unserved_;
  void Deliver(std::vector<records::EventRecord> events);
  void Wake();
  void LeaseStep();
  void AfterLeaseChange();
  // `url` (no query yet) with ?fieldManager= of options_.field_manager.
  std::string WithFieldManager(std::string url) const;
  void Submit(Write w);
  void Send(Write w, int attempt);
  void Refuse(const Write& w, const std::string& why);
  void Result(const records::ActionRecord& a, const http::HttpResponse& r);
  void Probe(records::ActionRecord a);
  void PollContent();  // loop thread
  const engine::ResourceType* TypeOf(std::string_view group, std::string_view kind) const;
  bool MayWrite(int64_t term) const;

  K8sOptions options_;
  const runtime::TimeSource& clock_;
  Rng rng_;
  http::IoLoop loop_;
  std::unique_ptr<http::HttpClient> http_;
  std::unique_ptr<http::PacedClient> api_;
  std::vector<std::unique_ptr<Reflector>> reflectors_;
  std::vector<engine::ResourceType> types_;  // every type actions may touch
  std::unique_ptr<LeaderElector> elector_;   // loop thread
  Backoff write_backoff_;
  std::deque<Write> held_;  // loop thread: waiting for leadership or HoldWrites
  bool hold_writes_ = false;
  bool pause_renewal_ = false;
  bool started_ = false;
  std::atomic<bool> shut_down_{false};
  WantedType seen_wanted_;  // SetSeenUnchanged, before Start
  SeenUnchanged seen_;
  std::map<std::string, std::string> content_digests_;  // loop thread: name → last digest logged

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<records::EventRecord> out_;
  std::function<void()> wake_;
  absl::Status health_;
  int64_t pending_ = 0;  // writes and probes without an answer yet

  std::atomic<bool> leading_{false};
  std::atomic<int64_t> term_{-1};
  std::atomic<uint64_t> refused_{0}, sent_{0}, lease_rounds_{0};
};

}  // namespace recon::k8s

#endif  // RECON_ADAPTERS_K8S_ADAPTER_H_
