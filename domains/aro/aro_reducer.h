// The aro reducer's class (exposed for unit tests; the CLI uses MakeReducer).
#ifndef RECON_DOMAINS_ARO_ARO_REDUCER_H_
#define RECON_DOMAINS_ARO_ARO_REDUCER_H_

#include <map>
#include <string>

#include "domains/aro/alert_webhook.h"
#include "domains/aro/cluster_operator.h"
#include "domains/aro/cluster_status.h"
#include "domains/aro/explain.h"
#include "domains/aro/geneva_logging.h"
#include "domains/aro/internet_checker.h"
#include "domains/aro/options.h"
#include "domains/aro/sp_checker.h"
#include "domains/aro/subnets.h"
#include "engine/reducer.h"

namespace recon::aro {

class AroReducer : public engine::Reducer {
 public:
  std::string_view Domain() const override { return "aro"; }
  std::vector<engine::OptionSpec> Options() const { return aro::Options::Specs(); }
  // resources.cc
  std::vector<engine::ResourceUse> Resources() const;
  engine::DomainDescriptor Describe() const override {
    engine::DomainDescriptor d = {Options(),
                                  Resources(),
                                  {},
                                  /*redecides_failed_writes=*/false,
                                  /*free_text_messages=*/
                                  {"Cluster/InternetReachableFromMaster",
                                   "Cluster/InternetReachableFromWorker", "Cluster/ServicePrincipalValid"}};
    d.secret_views = {GenevaCertificatesView(), AlertmanagerView()};
    return d;
  }
  absl::Status SetOption(std::string_view key, std::string_view value) override {
    return options_.Set(key, value);
  }
  // Reduces the event; under `recon explain` also notes what it did and why.
  void Reduce(const engine::Event& event, const engine::World& world, engine::Emit& emit) override;
  absl::Status Snapshot(engine::SnapshotWriter& writer) const override;
  absl::Status Restore(engine::SnapshotReader& reader) override;

  const ClusterStatus& status() const { return status_; }
  const SubnetsController& subnets() const { return subnets_; }

 private:
  void ReduceEvent(const engine::Event& event, const engine::World& world, engine::Emit& emit);
  // Explain notes (explain.cc): remediations and their drift, checker
  // rounds, what a pending round waits on; never read by ReduceEvent.
  NotesBefore NotesState() const;
  void AddNotes(const engine::Event& event, const engine::World& world, const NotesBefore& before,
                engine::Emit& emit) const;
  void SubnetNotes(const engine::Event& event, const engine::World& world, const NotesBefore& before,
                   engine::Emit& emit) const;
  void SubnetRoundNotes(const engine::Event& event, const NotesBefore& before, engine::Emit& emit) const;
  void CheckerRoundNotes(const engine::Event& event, const engine::World& world, const NotesBefore& before,
                         engine::Emit& emit) const;
  // An object event, once the world is synced; true when the
  // ClusterOperator is to reconcile after it.
  bool OnObjectEvent(const engine::Event& event, const engine::World& world, engine::Emit& emit);
  void OnObject(const engine::Event& event, const engine::World& world, engine::Emit& emit);
  // first_list.cc: a live adapter's initial lists (between the Cluster
  // facts `synced: false` and `synced: true`). An object event in them
  // decides nothing; its object is remembered, and the event that ends the
  // lists hands each one, as the world holds it then, to OnObjectEvent (as
  // upstream's controllers start once their caches have synced). True when
  // the ClusterOperator is to reconcile after them.
  void DeferObject(const engine::Event& event);
  bool ReconcileListed(const engine::Event& event, const engine::World& world, engine::Emit& emit);
  engine::Json DeferredToJson() const;
  void DeferredFromJson(const engine::Json& j);
  void OnCluster(const engine::Event& event, const engine::World& world, engine::Emit& emit);
  // Upstream's GenerationChangedPredicate, with the spec standing in for
  // a generation the log does not carry.
  bool ClusterGenerationChanged(const engine::Event& event, const engine::Json& body);

  aro::Options options_;
  ClusterStatus status_;
  SubnetsController subnets_;
  AlertWebhook webhook_;
  GenevaLogging geneva_;
  InternetChecker internet_;
  ServicePrincipalChecker sp_;
  ClusterOperatorAro cluster_operator_;
  std::string cluster_generation_;  // Dump of metadata.generation, "" if none
  std::string cluster_spec_;        // Dump of spec
  // Objects with an event during the initial lists, and whether one of
  // those events was an Added (a first read: see OnObject).
  std::map<engine::ObjectKey, bool> deferred_objects_;
};

}  // namespace recon::aro

#endif  // RECON_DOMAINS_ARO_ARO_REDUCER_H_
