// The simulated cluster: Kubernetes API semantics, OpenShift image imports,
// Azure resources, probes and timers, on a virtual clock driven by a queue
// of future happenings. It takes actions and hands back the events a real
// agent would observe (watch events, ActionResults, Probe answers, Timers).
// Everything is deterministic from the scenario and its seed.
#ifndef RECON_ADAPTERS_SIM_SIMULATOR_H_
#define RECON_ADAPTERS_SIM_SIMULATOR_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "adapters/sim/api.h"
#include "adapters/sim/faults.h"
#include "adapters/sim/imports.h"
#include "adapters/sim/object_store.h"
#include "adapters/sim/probes.h"
#include "adapters/sim/scenario.h"

namespace recon::sim {

struct SimStats {
  std::map<std::string, uint64_t> results_ok, results_failed;  // by verb
  uint64_t imports_ok = 0, imports_failed = 0;
  uint64_t edits_applied = 0, edits_failed = 0;
  uint64_t watch_dropped = 0, watch_delayed = 0, watch_resynced = 0;
  uint64_t injected_write_errors = 0;
  std::vector<std::string> warnings;  // edits that could not apply, bad actions
};

// A stand-in for a controller the scenario's cluster runs besides the API
// (e.g. OLM's install step, cli/soak_olm.h): it sees every change the
// cluster commits and answers with writes it makes `delay_ns` later, with
// the server's authority (no write faults). It must not block.
struct ControllerWrite {
  int64_t delay_ns = 0;
  std::string verb;  // create, update, updateStatus, delete
  Json object;
  // update: the object as stored when the write is made, without the owner
  // references of these uids (the garbage collector's patch; `object`
  // only names it).
  std::vector<std::string> drop_owners;
};
using Controller = std::function<std::vector<ControllerWrite>(const records::EventRecord& change,
                                                              const ObjectStore& objects)>;

class Simulator {
 public:
  // `api`: the CRDs and checks the cluster's API server applies (default:
  // the real CRDs embedded in the binary, validation on).
  explicit Simulator(const Scenario& scenario, ApiOptions api = ApiOptions::Default());

  int64_t now() const { return now_; }
  int64_t start() const { return start_ns_; }

  // Creates the scenario's initial objects (server side: uids,
  // resourceVersions; status kept) and schedules its edits. Returns the
  // Added events of the initial list, stamped now().
  std::vector<records::EventRecord> Start();

  // Carries out one action at now(); its outcome and the changes it causes
  // are queued as future events.
  void Apply(const records::ActionRecord& action);

  // When the next queued happening is due; nullopt when nothing is queued.
  std::optional<int64_t> NextTime() const;
  // Advances the clock to the next due time and runs everything due then.
  // Returns the events to log, in delivery order, stamped with that time.
  std::vector<records::EventRecord> Step();
  // Anything queued besides timers and relist ticks: results, answers,
  // watch events, imports in flight, user edits still to come.
  bool HasPendingWork() const { return work_ > 0; }

  const ObjectStore& objects() const { return objects_; }
  const SimStats& stats() const { return stats_; }
  const ProbeModel& probes() const { return probes_; }

  // Serve mode (the HTTP API, api_server.h): watch events go to `sink` at
  // once, in commit order, instead of through the queue and the watch
  // faults, so every stream sees resourceVersions ascending.
  using WatchSink = std::function<void(std::vector<records::EventRecord>)>;
  void SetWatchSink(WatchSink sink) { sink_ = std::move(sink); }
  void SetController(Controller controller) { controller_ = std::move(controller); }
  // A client's write at now(): the scenario's write faults, then the Api
  // semantics; the resulting events also go out as watch events.
  ApiResult Write(std::string_view verb, const Json& object);
  // An ImageStreamImport posted at now(): the immediate answer (a failure,
  // or 201); with spec.import the import completes after its latency.
  ApiResult RequestImport(const Json& image_stream_import);
  // Moves the clock forward to `t`, but never past the next queued happening
  // (Step runs those).
  void AdvanceClock(int64_t t);

 private:
  enum class Kind { kEvent, kTask, kResync };
  struct Item {
    Kind kind = Kind::kEvent;
    records::EventRecord event;
    std::function<void()> task;
  };
  using QueueKey = std::pair<int64_t, uint64_t>;  // (time, insertion order)

  void Push(int64_t at, Item item);
  void Result(const records::ActionRecord& action, const ApiResult& r, int64_t at);
  // Delivers watch events through the fault injector, in stream order.
  void Watch(std::vector<records::EventRecord> events);
  void OnImageStreamEvent(const records::EventRecord& e);
  // Hands committed changes to the controller and queues its writes.
  void OnChange(const records::EventRecord& e);
  void ImportImage(const records::ActionRecord& action, const Json& body);
  // Validates an ImageStreamImport and, with spec.import, schedules it;
  // `done` gets the outcome when it completes. Returns the immediate answer
  // and sets *scheduled when an import runs.
  ApiResult StartImport(const Json& body, bool* scheduled, std::function<void(const ApiResult&)> done);
  void RunEdit(const Edit& edit);
  // A delete edit whose reference has a `labelSelector` (label → value) and
  // no name: every object of that kind in its namespace with those labels.
  void DeleteSelected(const Json& ref, ApiResult* r, std::string* what);
  void Resync();
  const Json* Find(const Json& ref, ObjectKey* key) const;

  Scenario scenario_;
  int64_t start_ns_;
  int64_t now_;
  ObjectStore objects_;
  Api api_;
  FaultInjector faults_;
  ImportRules import_rules_;
  ProbeModel probes_;
  SimStats stats_;

  std::map<QueueKey, Item> queue_;
  uint64_t order_ = 0;
  uint64_t work_ = 0;
  int64_t last_watch_at_ = 0;                                              // a watch never reorders
  std::map<ObjectKey, std::map<std::string, std::string>> imported_from_;  // stream → tag → image asked
  std::map<ObjectKey, records::EventRecord> dropped_;  // latest undelivered watch event per object
  std::set<ObjectKey> known_;                        // objects the agent has seen (by delivered events)
  WatchSink sink_;                                   // serve mode only
  Controller controller_;
};

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_SIMULATOR_H_
