// One step of recon: event → world → reducers (fixed order) → actions.
// Also owns domain options and snapshots of the whole state.
#ifndef RECON_ENGINE_ENGINE_H_
#define RECON_ENGINE_ENGINE_H_

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/create_guard.h"
#include "engine/reducer.h"
#include "engine/world.h"
#include "records/record.h"

namespace recon::engine {

// Fetches Content files by digest (from a store) when an event only refers
// to them.
using ContentResolver = std::function<absl::StatusOr<records::ContentFiles>(std::string_view digest)>;

class Engine {
 public:
  explicit Engine(std::vector<std::unique_ptr<Reducer>> reducers);

  const std::vector<std::unique_ptr<Reducer>>& reducers() const { return reducers_; }
  const World& world() const { return world_; }
  uint64_t last_seq() const { return last_seq_; }
  void set_content_resolver(ContentResolver r) { resolver_ = std::move(r); }
  // For metrics only: wall time each reducer took (never seen by reducers).
  using ReduceObserver = std::function<void(std::string_view domain, double seconds)>;
  void set_reduce_observer(ReduceObserver o) { reduce_observer_ = std::move(o); }
  // For memory accounting only (bench/heap_figures.h): told, inside Step,
  // when the World's update begins, when the reducers begin and when Step
  // is done; what runs between two calls is that phase's.
  enum class StepPhase { kWorld, kReduce, kDone };
  using PhaseObserver = std::function<void(StepPhase)>;
  void set_phase_observer(PhaseObserver o) { phase_observer_ = std::move(o); }

  // "domain.key" = value. An override (from the command line) wins over
  // options recorded in the log; a recorded one is applied when its Cluster
  // event is reduced. Options of domains not running are kept, not applied.
  absl::Status SetOption(std::string_view full_key, std::string_view value, bool override_log);
  const std::map<std::string, std::string>& options() const { return options_; }
  // The specs of every running domain's options, keyed "domain.key".
  std::map<std::string, OptionSpec> OptionSpecs() const;
  // Adds to a Cluster event's `options` object every running domain's
  // option it lacks, at its default (directories only when given): a log
  // then replays as it ran under a later binary whose defaults moved.
  void AddOptionDefaults(Json& options) const;

  // A domain input given before line 1 (takes no seq).
  void SetContent(std::string_view name, std::string_view digest,
                  std::shared_ptr<const records::ContentFiles> files);

  // Reduces one event; actions are appended to `out`. Errors name the seq.
  // Creates the guard holds (engine/create_guard.h) are not in `out`.
  absl::Status Step(const Event& event, std::vector<records::ActionRecord>* out);
  // The creates the last Step held, for explain notes and metrics.
  const std::vector<HeldCreate>& held() const { return held_; }
  // For `recon explain`: the Emits of each Step collect their domains'
  // explain notes, readable until the next Step.
  void set_collect_notes(bool on) { collect_notes_ = on; }
  const std::vector<ExplainNote>& notes(std::string_view domain) const;

  // Everything (world, options, reducers' states) at the last reduced seq.
  absl::StatusOr<std::string> Snapshot() const;
  absl::Status Restore(std::string_view snapshot);
  // sha256 of the snapshot: equal digests mean equal state.
  absl::StatusOr<std::string> StateDigest() const;

 private:
  absl::Status ApplyOption(std::string_view full_key, std::string_view value);
  absl::Status StepPhases(const Event& event, std::vector<records::ActionRecord>* out);
  absl::Status ApplyLoggedOptions(const Event& event);

  std::vector<std::unique_ptr<Reducer>> reducers_;
  // Domains that decide again on their failed writes (DomainDescriptor).
  std::set<std::string, std::less<>> redeciding_;
  World world_;
  CreateGuard guard_;
  std::vector<HeldCreate> held_;
  bool collect_notes_ = false;
  std::map<std::string, std::vector<ExplainNote>, std::less<>> notes_;  // by domain, this Step's
  uint64_t last_seq_ = 0;
  std::map<std::string, std::string> options_;
  std::set<std::string> overridden_;
  ContentResolver resolver_;
  ReduceObserver reduce_observer_;
  PhaseObserver phase_observer_;
  std::map<std::string, std::shared_ptr<const records::ContentFiles>> content_cache_;
};

}  // namespace recon::engine

#endif  // RECON_ENGINE_ENGINE_H_
