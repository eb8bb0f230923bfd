// The in-process cluster `recon bench olm` drives the engine against: an
// API server that carries out every write at once (answered with the
// resourceVersion and uid it produced, its watch event queued) and what a
// cluster does besides OLM's two operators, which recon plays itself
// (olm.executePlans, olm.csvLifecycle): the simulated cluster's kubelet that
// runs the bundle unpack Jobs, Kubernetes' garbage collector, the CRD
// controller that Establishes a CRD and the Deployment controller that
// rolls one out (adapters/sim/olm_stand_in.h).
//
// Unlike the simulated server (adapters/sim/api.h) it validates nothing;
// an engine's update over a resourceVersion the object no longer has is
// refused 409 (since session 29; before, every write applied to the
// latest object, as in issue 35's bench), the stand-in's writes are not. A create of an existing object is
// refused (409), a write to a missing one too (404); a write that changes nothing has no event.
#ifndef RECON_BENCH_OLM_CLUSTER_H_
#define RECON_BENCH_OLM_CLUSTER_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "adapters/sim/object_store.h"
#include "adapters/sim/olm_stand_in.h"
#include "adapters/sim/simulator.h"
#include "engine/json.h"
#include "records/record.h"

namespace recon::bench {

class OlmBenchCluster {
 public:
  // `queue`: where the watch events and the answers to the engine's writes go.
  OlmBenchCluster(std::shared_ptr<const sim::OlmBundles> bundles, std::deque<records::EventRecord>* queue);

  // An object the run starts with: stored (uid, resourceVersion) and its
  // Added event queued.
  void Seed(engine::Json object, int64_t now);
  // The engine's writes of one step, carried out in order; each change's
  // watch event queued, then what the cluster's controllers do about it.
  void Apply(const std::vector<records::ActionRecord>& actions, int64_t now);

  uint64_t install_plans_created() const { return install_plans_; }
  const sim::ObjectStore& objects() const { return store_; }

 private:
  struct Outcome {
    int status = 200;  // HTTP
    std::string error;
    const engine::Json* object = nullptr;  // after the write (null: deleted or refused)
  };
  // An engine's update carrying a resourceVersion the object no longer has.
  bool Stale(const std::string& verb, const engine::Json& body) const;
  // One write, as the API server applies it; `changes` collects the events.
  Outcome Write(const std::string& verb, engine::Json body, int64_t now);
  // The controllers on each queued change, their writes applied in order
  // of their delay, and on the changes those make, until none is left.
  void React(int64_t now);

  std::shared_ptr<const sim::OlmBundles> bundles_;
  std::deque<records::EventRecord>& queue_;
  sim::ObjectStore store_;
  sim::Controller controller_;
  std::deque<records::EventRecord> changes_;  // not yet seen by the controllers
  uint64_t install_plans_ = 0;
};

}  // namespace recon::bench

#endif  // RECON_BENCH_OLM_CLUSTER_H_
