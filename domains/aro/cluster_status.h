// Writes the Cluster singleton's status as upstream's setters do: the
// Cluster as observed, with only the writing controller's conditions set
// (the checkers' setter also drops unknown types), carrying the observed
// resourceVersion, so a write never puts back a value another writer
// changed. A conflict writes the same conditions again over the newer
// Cluster. Conditions recon set that the world does not show yet (a write
// in flight, or one deferred behind it) count over the observation until
// it shows them; everything else is the observation.
#ifndef RECON_DOMAINS_ARO_CLUSTER_STATUS_H_
#define RECON_DOMAINS_ARO_CLUSTER_STATUS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "domains/aro/conditions.h"
#include "domains/aro/requeue.h"
#include "engine/emit.h"
#include "engine/event.h"
#include "engine/world.h"

namespace recon::aro {

// Fires to write again a status write a 409 left held when no newer
// Cluster came (upstream requeues a failed status update with backoff).
inline constexpr std::string_view kStatusTimer = "aro/clusterstatus";

// One condition change and the event that caused it (for explain).
struct ConditionChange {
  uint64_t seq = 0;
  std::string writer, type, status, reason, message;
};

class ClusterStatus {
 public:
  // The observed conditions, with ours the world does not show yet over them.
  std::vector<Condition> Effective(const engine::World& world) const;
  std::string EffectiveVersion(const engine::World& world) const;

  // Setter (A); `stamp_version` is the master's operatorVersion stamp ("" =
  // none). Returns whether a write was emitted.
  bool SetChecker(std::string_view writer, const Condition& c, const std::string& stamp_version,
                  const engine::Event& event, const engine::World& world, engine::Emit& emit);
  // Setter (B) for a controller's conditions, written at once if changed.
  bool SetController(std::string_view writer, const std::vector<Condition>& conds, const engine::Event& event,
                     const engine::World& world, engine::Emit& emit);

  // An ActionResult: a status write of ours given up on (a conflict, a
  // refusal) is written again from the observed Cluster (upstream
  // retries); a deferred one goes when any write of ours to the Cluster is
  // answered. Returns whether the result answered one of our status writes.
  bool OnActionResult(const engine::Event& event, const engine::World& world, engine::Emit& emit);
  // The aro/clusterstatus timer: a write a 409 held goes again over the
  // Cluster as observed, if no newer Cluster came meanwhile.
  void OnTimer(const engine::Event& event, const engine::World& world, engine::Emit& emit);
  // A Cluster event: a deferred write (ours was in flight) goes out now.
  void OnClusterEvent(const engine::World& world, engine::Emit& emit);

  void Reset();  // the Cluster was deleted
  engine::Json ToJson() const;
  void FromJson(const engine::Json& j);
  const std::vector<ConditionChange>& history() const { return history_; }

 private:
  void Record(std::string_view writer, const std::vector<Condition>& before,
              const std::vector<Condition>& after, uint64_t seq);
  // Writes `mine` (a writer's conditions) and whatever is owed over the
  // observed Cluster, or owes them while a write of ours is unanswered or
  // refused. `prune`: the checkers' setter, which drops unknown types.
  // `past_conflict`: a 409's hold does not stop this write (the requeue).
  void Write(const std::vector<Condition>& mine, bool prune, const engine::World& world, engine::Emit& emit,
             bool past_conflict = false);
  void Rewrite(const engine::World& world, engine::Emit& emit, bool past_conflict = false);
  // Whether the world may not show our last status write yet.
  bool InFlightUnshown(const engine::World& world) const;

  std::vector<Condition> in_flight_;  // the conditions our last status write set
  std::vector<Condition> owed_;       // set, not written yet (deferred, or their write refused)
  bool owe_prune_ = false;            // an owed checker write drops unknown types
  uint64_t written_seq_ = 0;          // the event our last status write was made at
  std::string written_version_;
  std::vector<ConditionChange> history_;
  bool rewrite_ = false;                        // a write is owed (deferred or refused)
  Requeue requeue_{std::string(kStatusTimer)};  // after 409s, with backoff
};

}  // namespace recon::aro

#endif  // RECON_DOMAINS_ARO_CLUSTER_STATUS_H_
