// The samples domain: the cluster-samples-operator as a pure reducer.
//
// One class, its behaviour split by concept over several .cc files:
//   reducer.cc          dispatch, options, snapshot, write bookkeeping
//   bootstrap.cc        the default Config (and the TBR decision)
//   config_machine.cc   the Config state machine (one Config write per event)
//   upsert.cc           inventory → imagestreams/templates, ist→image CM
//   imagestream_events.cc  IS / template / ConfigMap watch events
//   import_tracking.cc  per-IS ConfigMaps, importImage retries, re-import timer
//   removal.cc          Removed stages, waiting on imports, cleanup, finalizer
//   clusteroperator.cc  the ClusterOperator status (free functions)
#ifndef RECON_DOMAINS_SAMPLES_REDUCER_H_
#define RECON_DOMAINS_SAMPLES_REDUCER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "domains/samples/inventory.h"
#include "engine/reducer.h"

namespace recon::samples {

using engine::Emit;
using engine::Event;
using engine::Json;
using engine::World;

// -1: wait forever (historical behaviour); 0: never wait (current upstream).
inline constexpr int64_t kWaitForever = -1;

// What an explain needs about a removal: when it was asked, what it waited
// on and since when, and how it ended.
struct RemovalRecord {
  uint64_t requested_seq = 0;
  int64_t requested_ns = 0;
  uint64_t waiting_since_seq = 0;
  int64_t waiting_since_ns = 0;
  std::vector<std::string> waiting_on;  // in-progress imports at the latest check
  uint64_t gave_up_seq = 0;             // the wait limit passed
  int64_t gave_up_ns = 0;
  std::vector<std::string> abandoned;
  uint64_t completed_seq = 0;  // cleanup done (status Removed)
  int64_t deadline_ns = 0;     // 0: none
  bool timer_set = false;
  std::vector<std::string> waited_on;  // the imports in progress when the wait began
};

struct SamplesState {
  bool tbr_unreachable = false;  // upstream's tbrCheckFailed (kept across restarts: it is in the log)
  bool awaiting_registry_probe = false;  // a probe or its retry timer is pending
  int64_t registry_probe_since_ns = 0;   // the first probe of this bootstrap, 0: none
  std::map<std::string, int64_t> retry_ns;            // IS → last retry import time
  std::set<std::string> failing;                      // IS with failed tags at the last check
  std::map<std::string, int64_t> retry_total;         // IS → successful retry imports (metric)
  std::map<std::string, std::string> import_actions;  // action id → IS, awaiting a result
  std::set<std::string> mass_deleted;                 // "<kind>/<name>" deleted by cleanup
  int64_t reimport_timer_ns = 0;                      // pending samples/reimport timer, 0: none
  std::optional<RemovalRecord> removal;
  std::vector<RemovalRecord> past_removals;
  int invalidconfig_metric = 0;
  int degraded_metric = 0;
  // recon: spec.samplesRegistry and the skip lists as our last copy of the
  // spec into the status had them (absent fields absent): what the samples
  // were last written for, even when that status write then failed.
  std::optional<Json> applied;
  // recon: every spec.samplesRegistry ("" too) streams were written for.
  std::set<std::string> applied_registries;
  // recon, for explain's notes (no decision reads them): the Config's
  // spec.managementState as last observed, and its status.managementState
  // as we last wrote it (or first observed it).
  std::string observed_spec_mgmt, written_status_mgmt;
};

class SamplesReducer : public engine::Reducer {
 public:
  SamplesReducer() = default;

  std::string_view Domain() const override;
  std::vector<engine::OptionSpec> Options() const;
  // resources.cc
  std::vector<engine::ResourceUse> Resources() const;
  engine::DomainDescriptor Describe() const override {
    return {Options(), Resources(), {}, /*redecides_failed_writes=*/true,
            /*free_text_messages=*/{}};
  }
  absl::Status SetOption(std::string_view key, std::string_view value) override;
  // Reduces the event; under `recon explain` also notes what it did and why.
  void Reduce(const Event& event, const World& world, Emit& emit) override;
  absl::Status Snapshot(engine::SnapshotWriter& writer) const override;
  absl::Status Restore(engine::SnapshotReader& reader) override;
  // metrics.cc: the openshift_samples_* series (reference §16).
  void ExportMetrics(const World& world, engine::MetricSink& metrics) const override;

  const SamplesState& state() const { return st_; }
  int64_t removal_import_wait_ns() const { return removal_wait_ns_; }

 private:
  // One Reduce call's context.
  struct Ctx {
    const Event& ev;
    const World& world;
    Emit& emit;
    int64_t now;
    std::string version;           // V
    engine::EmittedWrite pending;  // PendingWrite's answer
  };
  // The Config as one event works on it.
  struct Cfg {
    const engine::Object* obj = nullptr;
    Json spec, status;
    std::string mgmt;  // spec.managementState
    std::set<std::string> skipped_streams, skipped_templates;
  };

  // reducer.cc
  void ReduceEvent(const Event& event, const World& world, Emit& emit);
  // The Config's management states as the notes tell them (SamplesState).
  void ObserveConfig(const Event& event, const World& world);
  std::string Write(Ctx& c, std::string_view verb, const Json& object);
  void WriteConfigStatus(Ctx& c, const Cfg& cfg);
  // The failed write an ActionResult settled (engine/write_tracker.h), if
  // no newer write of ours to the object replaced it.
  const engine::TrackedWrite* OnActionResult(const Ctx& c);
  // Our newest write to the object that the world does not show yet (this
  // event's, else the tracker's): its verb and body. Null when none, or
  // when `verb` is given and the write is another verb.
  const engine::EmittedWrite* PendingWrite(Ctx& c, std::string_view group, std::string_view kind,
                                           std::string_view ns, std::string_view name,
                                           std::string_view verb = {});
  // A Config write of ours not observed yet: its watch event drives the next step.
  const engine::EmittedWrite* PendingConfigWrite(Ctx& c);
  // A failed write's work item run again from the world (upstream requeues
  // it): what the object's own handler wants now, which may be nothing.
  void RetryWrite(Ctx& c, const engine::TrackedWrite& failed);
  absl::StatusOr<const Inventory*> GetInventory(const World& world);
  std::optional<Cfg> ReadConfig(const World& world) const;

  // bootstrap.cc
  void Bootstrap(Ctx& c);
  void OnRegistryProbe(Ctx& c);
  void OnRegistryProbeTimer(Ctx& c);
  void CreateDefaultConfig(Ctx& c, std::string_view mgmt);

  // config_machine.cc
  void ReconcileConfig(Ctx& c);
  // Unmanaged, or a management state that is none of the four (§6.4): the
  // status says so; true when that is all this event does.
  bool ReconcileNotManaged(Ctx& c, Cfg& cfg, const std::string& status_mgmt);
  // What changed between the spec and the status (§6.6): skips undone, a
  // registry moved; what must be upserted again.
  struct ConfigChanges {
    bool changed = false, needs_upsert = false, registry_changed = false;
    std::set<std::string> unskipped_streams, unskipped_templates;
  };
  ConfigChanges DetectChanges(Ctx& c, Cfg& cfg);
  // Nothing changed and the samples exist: the ist→image map, missing
  // samples, pending tracking ConfigMaps.
  void MaintainSteadyState(Ctx& c, Cfg& cfg);
  // Spec → status ("store current valid config"); remembers it in st_.applied.
  void CopySpecToStatus(const Json& spec, Json& status);
  void UpdateClusterOperator(Ctx& c, Cfg& cfg, bool deletion);
  bool ValidateSpec(Ctx& c, Cfg& cfg);

  // upsert.cc
  void MaintainIstToImage(Ctx& c, const Inventory* inv);
  bool FullUpsert(Ctx& c, Cfg& cfg, const std::set<std::string>& unskipped_streams,
                  const std::set<std::string>& unskipped_templates, bool registry_changed);
  void CreateMissing(Ctx& c, Cfg& cfg, const Inventory& inv);
  // The stream as the inventory wants it: labels, version, registry
  // override, and the tags only `cluster` (if any) has merged in.
  Json DesiredStream(const Ctx& c, const Cfg& cfg, const Json& file, const engine::Object* cluster) const;
  void UpsertStream(Ctx& c, const Cfg& cfg, const Json& file, const engine::Object* cluster, bool deleted);
  void UpsertTemplate(Ctx& c, const Cfg& cfg, const Json& file, const engine::Object* cluster, bool deleted);
  void RelabelSkipped(Ctx& c, const Cfg& cfg);
  // recon: the stream as one of our own earlier writes left it for another
  // spec (relabeled for a skip, or for another registry override).
  bool StaleOwnWrite(const Ctx& c, const Cfg& cfg, const Json& file, const engine::Object& is) const;
  void EnsurePendingConfigMap(Ctx& c, std::string_view name);

  // imagestream_events.cc
  void OnImageStream(Ctx& c);
  void OnTemplate(Ctx& c);
  void OnOperatorConfigMap(Ctx& c);
  // Before a live adapter's initial lists are complete an object event only
  // keeps the cleanup bookkeeping (nothing is decided from a partial world);
  // the Cluster event that ends them hands every listed stream, template
  // and tracking ConfigMap to its handler, as upstream's informers queue
  // every listed object for workers that start once the caches have synced.
  void ForgetCleanupDelete(const Event& ev);
  void ReconcileListed(Ctx& c);
  // A tracking ConfigMap against its stream's import status.
  void SettleTracking(Ctx& c, const Cfg& cfg, std::string_view cm_name);
  // On an ok answer to our ImageStream write whose echo came first.
  void SettleTrackingAtAnswer(Ctx& c);
  bool ShouldSetVersion(const Ctx& c, const Cfg& cfg, const Inventory& inv) const;

  // import_tracking.cc
  void ProcessImportStatus(Ctx& c, const Cfg& cfg, const engine::Object& is);
  void OnReimportTimer(Ctx& c);
  void ScheduleReimport(Ctx& c);
  void DeleteConfigMapIfPresent(Ctx& c, std::string_view name);

  // removal.cc
  // Removed stages; returns whether the Config status changed (to write).
  bool ProcessRemoved(Ctx& c, Cfg& cfg);
  std::vector<std::string> InProgressImports(const Ctx& c, const Cfg& cfg) const;
  absl::Status CleanupNamespace(Ctx& c);
  void HandleDeletion(Ctx& c, Cfg& cfg);
  void EndRemoval(Ctx& c);

  // explain.cc: management-state transitions, what a pending state waits
  // on. The notes compare the state after the event with NotesBefore,
  // taken before it (only under `recon explain`).
  struct NotesBefore {
    std::string spec_mgmt, status_mgmt;
    uint64_t removal_seq = 0;  // requested_seq of the removal in progress
    std::vector<std::string> waiting_on;
    std::set<std::string> failing;
  };
  NotesBefore NotesState() const;
  void AddNotes(const Event& event, const World& world, const NotesBefore& before, Emit& emit) const;
  void ConfigNotes(const Event& event, const World& world, const NotesBefore& before, Emit& emit) const;
  void RemovalNotes(const Event& event, const NotesBefore& before, Emit& emit) const;
  // bootstrap.cc: why the default Config is created Managed or Removed.
  void NoteBootstrap(const Ctx& c, std::string_view mgmt) const;

  SamplesState st_;
  int64_t removal_wait_ns_ = 10 * 60 * 1000000000LL;
  std::string removal_wait_text_ = "10m";
  // Parsed inventory, keyed by content digest (derived, not snapshotted).
  std::string inventory_digest_;
  std::shared_ptr<absl::StatusOr<Inventory>> inventory_;
};

std::unique_ptr<engine::Reducer> MakeReducer();

}  // namespace recon::samples

#endif  // RECON_DOMAINS_SAMPLES_REDUCER_H_
