// What an InstallPlan pass (install/plan_pass.h) reads of the cluster, from
// the reducer's World: the observed objects, and where the domain's own
// creates of a plan's objects stand (its record of them, and the engine's
// write tracker for their answers).
#ifndef RECON_DOMAINS_OLM_PLAN_VIEW_H_
#define RECON_DOMAINS_OLM_PLAN_VIEW_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "domains/olm/install/plan_pass.h"
#include "engine/world.h"

namespace recon::olm {

struct PendingWrite;

// "group/Kind/ns/name" of an object a plan step names.
std::string StepObjectKey(std::string_view group, std::string_view kind, std::string_view ns,
                          std::string_view name);

class PlanWorldView : public ClusterView {
 public:
  // `creates`: the domain's step creates by StepObjectKey (OlmState::step_creates).
  // `seq`: the event being reduced; a create recorded at it was sent by this
  // very step (another plan's pass: two plans unpacking one bundle), which
  // the write tracker does not know yet: in flight.
  // `updates`: the step updates the domain sent at this event, by
  // StepObjectKey (null: none).
  // `plan` ("ns/name", or "" for any): the plan whose pass reads it; a
  // create another plan recorded is that plan's (see CreateOf).
  PlanWorldView(const engine::World& world, const std::map<std::string, PendingWrite>& creates, uint64_t seq,
                const std::map<std::string, engine::Json>* updates = nullptr, std::string plan = "")
      : world_(world), creates_(creates), seq_(seq), updates_(updates), plan_(std::move(plan)) {}

  // The object as the domain's newest update of it leaves it while that
  // update is unanswered (sent at this event, or in flight), else as
  // observed: two plans updating one object (a CRD two namespaces' CSVs
  // share) build on each other's update, as upstream's, one after the
  // other, do. Without it the work queue, which keeps only an object's
  // newest write waiting, lost the first plan's installed-alongside
  // annotation.
  const engine::Json* Get(std::string_view group, std::string_view kind, std::string_view ns,
                          std::string_view name) const override;
  std::vector<const engine::Json*> List(std::string_view group, std::string_view kind,
                                        std::string_view ns) const override;
  // Whether the object is observed, without parsing it (Get parses and the
  // World keeps the parse: a bundle's unpack ConfigMap is its manifests).
  bool Observed(std::string_view group, std::string_view kind, std::string_view ns,
                std::string_view name) const;
  // Ours when the domain recorded it: in flight until answered, landed once
  // answered ok or shown, failed when the server refused it; a create
  // recorded but neither pending, refused nor shown was lost (an agent
  // stopped before its answer): none, so the pass sends it again. One
  // answered AlreadyExists, or another plan's, is in flight until the
  // object is seen, then none: the pass updates it, as upstream does
  // after AlreadyExists (two namespaces' plans creating one new CRD).
  OwnCreate CreateOf(std::string_view group, std::string_view kind, std::string_view ns,
                     std::string_view name) const override;
  // No discovery in a reducer: the supported kinds' scope as Kubernetes
  // and OpenShift serve them (a kind the cluster does not serve fails at
  // its create instead of upstream's discovery check).
  std::optional<bool> Namespaced(std::string_view group, std::string_view version,
                                 std::string_view kind) const override;

 private:
  const engine::World& world_;
  const std::map<std::string, PendingWrite>& creates_;
  uint64_t seq_;
  const std::map<std::string, engine::Json>* updates_;
  std::string plan_;
};

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_PLAN_VIEW_H_
