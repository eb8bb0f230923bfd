// The AzureSubnets controller (reference §2): keeps every cluster subnet
// attached to the ARO-managed NSG and carrying the required service
// endpoints. Azure reads are Subnet objects in the world; PUTs are update
// actions whose ActionResults close the round. Besides the upstream
// triggers it runs on the aro/subnets timer (aro.subnetsInterval).
#ifndef RECON_DOMAINS_ARO_SUBNETS_H_
#define RECON_DOMAINS_ARO_SUBNETS_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "domains/aro/options.h"
#include "domains/aro/requeue.h"
#include "engine/emit.h"
#include "engine/event.h"
#include "engine/world.h"

namespace recon::aro {

inline constexpr std::string_view kSubnetsTimer = "aro/subnets";
inline constexpr std::string_view kSubnetTimestampAnnotation =
    "aro.openshift.io/lastSubnetReconcileTimestamp";

// One write the controller made, the drift that caused it, and how it ended.
struct Remediation {
  uint64_t seq = 0;
  std::string trigger, target, step, drift, action, outcome;
  std::string nsg;  // the NSG an "nsg" write attaches, for its notes
};

class SubnetsController {
 public:
  SubnetsController() : requeue_(std::string(kSubnetsTimer)) {}

  void Trigger(std::string_view why, const engine::Event& event, const engine::World& world,
               engine::Emit& emit, const Options& options);
  void OnTimer(const engine::Event& event, const engine::World& world, engine::Emit& emit,
               const Options& options);
  // While held, a trigger only asks for a round (as before the lists are
  // complete): the objects handed over at the end of the lists trigger
  // one round, run by OnSynced, not one each (upstream's one key).
  void Hold(bool hold) { holding_ = hold; }
  // A Cluster event: when it ends a live adapter's lists (the fact
  // `synced`), runs the round a trigger asked for before.
  void OnSynced(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                const Options& options);
  // Every object event: the newest resourceVersion the world shows.
  void Observe(const engine::Event& event);
  // A Subnet (or NSG) event that a live GET by the last round would have
  // seen: its resourceVersion is older than the newest one the world showed
  // then. Subnets in the world stand for upstream's live ARM GETs, but they
  // come on their own watch and may lag behind the MachineSet that
  // triggered the round (a watch relisting after a 410: four-domain soak,
  // seed 16, a detached NSG stayed detached). Non-numeric versions: false.
  bool ReadStale(const engine::Event& event) const;
  // True when the result was for one of our writes.
  bool OnActionResult(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                      const Options& options);

  const std::vector<Remediation>& remediations() const { return remediations_; }
  // Remediations ever recorded (the front of the list may have been dropped).
  uint64_t remediations_total() const { return remediation_base_ + remediations_.size(); }
  const std::string& last_error() const { return last_error_; }
  // Read-only views for explain.
  bool open() const { return open_; }
  bool dirty() const { return dirty_; }
  uint64_t round() const { return round_; }
  int64_t round_start() const { return round_start_; }
  // Why the current (or last) round ran, in a person's words (explain.h's RoundWhy).
  const std::string& round_why() const { return round_why_; }
  const Requeue& requeue() const { return requeue_; }
  // The writes of the current round still unanswered: (action id, target).
  std::vector<std::pair<std::string, std::string>> PendingWrites() const;
  engine::Json ToJson() const;
  void FromJson(const engine::Json& j);

 private:
  struct Pending {
    std::string target, step;
    uint64_t round = 0;
    size_t remediation = 0;  // index into remediations_ when written
  };
  void Run(std::string_view why, const engine::Event& event, const engine::World& world, engine::Emit& emit,
           const Options& options);
  void Finish(const engine::Event& event, const engine::World& world, engine::Emit& emit,
              const Options& options);
  std::string Write(std::string_view why, std::string_view step, std::string_view drift,
                    const engine::Json& object, const engine::Event& event, engine::Emit& emit);
  bool RoundPending() const;

  std::map<std::string, Pending> pending_;  // by action id
  uint64_t round_ = 0;
  int64_t round_start_ = 0;
  std::string round_why_;
  bool open_ = false;
  bool dirty_ = false;
  bool deferred_ = false;   // triggered before the world was synced
  bool holding_ = false;    // Hold: within one event, never in a snapshot
  uint64_t newest_rv_ = 0;  // see Observe
  uint64_t read_rv_ = 0;    // newest_rv_ when the last round ran
  std::vector<std::string> errors_;
  std::string last_error_;
  Requeue requeue_;
  std::vector<Remediation> remediations_;
  uint64_t remediation_base_ = 0;  // remediations dropped from the front
};

}  // namespace recon::aro

#endif  // RECON_DOMAINS_ARO_SUBNETS_H_
