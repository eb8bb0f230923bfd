#include "domains/aro/reducer.h"

#include "domains/aro/aro_reducer.h"
#include "domains/aro/common.h"

namespace recon::aro {

std::unique_ptr<engine::Reducer> MakeReducer() { return std::make_unique<AroReducer>(); }

namespace {

bool Is(const engine::Event& e, std::string_view group, std::string_view kind) {
  return e.group == group && e.kind == kind;
}

std::string RoleLabel(const Json& body) {
  const Json& labels = engine::Path(body, {"metadata", "labels"});
  return Str(labels, kRoleLabel);
}

}  // namespace

bool AroReducer::ClusterGenerationChanged(const engine::Event& event, const Json& body) {
  std::string generation = engine::Dump(engine::Path(body, {"metadata", "generation"}));
  std::string spec = engine::Dump(engine::Path(body, {"spec"}));
  bool changed = event.type != records::EventType::kModified ||
                 (generation != "null" ? generation != cluster_generation_ : spec != cluster_spec_);
  cluster_generation_ = generation == "null" ? "" : generation;
  cluster_spec_ = spec;
  return changed;
}

void AroReducer::OnCluster(const engine::Event& event, const engine::World& world, engine::Emit& emit) {
  if (event.type == records::EventType::kDeleted) {
    // Every controller's GET fails until it is back; nothing to write.
    status_.Reset();
    cluster_generation_.clear();
    cluster_spec_.clear();
    return;
  }
  auto body = engine::ParseJson(event.body);
  if (!body.ok()) return;
  if (!ClusterGenerationChanged(event, *body)) return;  // status/annotation-only writes
  internet_.Trigger(event, world, emit, status_, options_);
  if (!options_.master()) return;
  subnets_.Trigger("cluster spec changed", event, world, emit, options_);
  sp_.Trigger(event, world, emit, status_, options_);
  geneva_.Reconcile(event, world, emit, status_);
}

void AroReducer::OnObject(const engine::Event& event, const engine::World& world, engine::Emit& emit) {
  if (Is(event, kAroGroup, kClusterKind)) {
    if (event.name == kClusterName) OnCluster(event, world, emit);
    return;
  }
  if (!options_.master()) return;  // the worker only runs the internet checker
  if (Is(event, kMachineGroup, "Machine") || Is(event, kMachineGroup, "MachineSet")) {
    auto body = engine::ParseJson(event.body);
    if (!body.ok()) return;
    // Watch predicates: master Machines and worker MachineSets only.
    std::string role = RoleLabel(*body);
    bool machine = event.kind == "Machine";
    if (EqualFold(role, machine ? "master" : "worker")) {
      subnets_.Trigger(machine ? "master machine changed" : "worker machineset changed", event, world, emit,
                       options_);
    }
    return;
  }
  if (GenevaLogging::Owns(event)) {
    geneva_.OnOwnedEvent(event, world, emit, status_);
    return;
  }
  if (event.group == kAzureGroup &&
      (event.type == records::EventType::kAdded || event.type == records::EventType::kModified)) {
    const bool read = event.kind == "Subnet" ||
                      (event.kind == "NetworkSecurityGroup" && options_.restore_default_nsg_rules);
    const bool subnet = event.kind == "Subnet";
    if (!read) return;
    if (event.type == records::EventType::kAdded) {
      // The first read of a subnet (or NSG) answers the GET a round skipped.
      subnets_.Trigger(subnet ? "subnet read" : "nsg read", event, world, emit, options_);
    } else if (subnets_.ReadStale(event)) {
      // A change the last round's GET would have seen (subnets.h).
      subnets_.Trigger(subnet ? "subnet changed before the last round" : "nsg changed before the last round",
                       event, world, emit, options_);
    }
    return;
  }
  if (event.group.empty() && event.kind == "Secret") {
    if (event.ns == "kube-system" && event.name == "azure-credentials") {
      sp_.Trigger(event, world, emit, status_, options_);
    } else if (event.ns == "openshift-monitoring" && event.name == "alertmanager-main") {
      webhook_.OnSecret(event, world, emit);
    }
  }
}

void AroReducer::Reduce(const engine::Event& event, const engine::World& world, engine::Emit& emit) {
  if (!emit.explaining()) return ReduceEvent(event, world, emit);
  // The notes compare with the state before the event: taken only for explain.
  NotesBefore before = NotesState();
  ReduceEvent(event, world, emit);
  AddNotes(event, world, before, emit);
}

bool AroReducer::OnObjectEvent(const engine::Event& event, const engine::World& world, engine::Emit& emit) {
  OnObject(event, world, emit);
  bool cluster_event = Is(event, kAroGroup, kClusterKind) && event.name == kClusterName;
  if (cluster_event) status_.OnClusterEvent(world, emit);
  // ClusterOperatorARO watches every Cluster change, our own writes included.
  bool co_event = Is(event, "config.openshift.io", "ClusterOperator") && event.name == "aro";
  return cluster_event || co_event;
}

void AroReducer::ReduceEvent(const engine::Event& event, const engine::World& world, engine::Emit& emit) {
  size_t before = emit.count();
  bool co_due = false;
  if (event.IsObject()) subnets_.Observe(event);
  switch (event.type) {
    case records::EventType::kAdded:
    case records::EventType::kModified:
    case records::EventType::kDeleted:
      if (!world.Synced()) {
        DeferObject(event);  // decided when the lists are complete
        return;
      }
      co_due = OnObjectEvent(event, world, emit);
      break;
    case records::EventType::kTimer:
      if (event.timer == kStatusTimer) {
        status_.OnTimer(event, world, emit);
      } else if (event.timer == kInternetTimer) {
        internet_.OnTimer(event, world, emit, status_, options_);
      } else if (options_.master() && event.timer == kSubnetsTimer) {
        subnets_.OnTimer(event, world, emit, options_);
      } else if (options_.master() && event.timer == kSpTimer) {
        sp_.OnTimer(event, world, emit, status_, options_);
      } else if (options_.master() && event.timer == kGenevaTimer) {
        geneva_.OnTimer(event, world, emit, status_);
      } else if (options_.master() && event.timer == kClusterOperatorTimer) {
        co_due = cluster_operator_.OnTimer(event);
      }
      break;
    case records::EventType::kCluster:
      co_due = ReconcileListed(event, world, emit);
      if (options_.master()) subnets_.OnSynced(event, world, emit, options_);
      break;
    case records::EventType::kProbe:
      if (!internet_.OnProbe(event, world, emit, status_, options_) && options_.master()) {
        sp_.OnProbe(event, world, emit, status_, options_);
      }
      break;
    case records::EventType::kActionResult:
      if (status_.OnActionResult(event, world, emit)) break;
      // Not reconciled on its own answer: a 409 goes again on its backoff
      // timer, not at once into the same conflict.
      if (options_.master() && cluster_operator_.OnActionResult(event, world, emit)) return;
      if (options_.master() && !subnets_.OnActionResult(event, world, emit, options_)) {
        geneva_.OnActionResult(event, world, emit, status_);
      }
      break;
    default:
      break;
  }
  if (!options_.master()) return;
  if (co_due || emit.count() != before) {
    cluster_operator_.Reconcile(event, world, emit, status_, options_);
  }
}

absl::Status AroReducer::Snapshot(engine::SnapshotWriter& writer) const {
  Json j = {{"clusterGeneration", cluster_generation_},
            {"clusterSpec", cluster_spec_},
            {"status", status_.ToJson()},
            {"subnets", subnets_.ToJson()},
            {"internet", internet_.ToJson()},
            {"servicePrincipal", sp_.ToJson()},
            {"alertWebhook", webhook_.ToJson()},
            {"genevaLogging", geneva_.ToJson()},
            {"clusterOperator", cluster_operator_.ToJson()}};
  // Only while the lists are incomplete: other snapshots read as before.
  if (!deferred_objects_.empty()) j["deferredObjects"] = DeferredToJson();
  writer.WriteJson(j);
  return absl::OkStatus();
}

absl::Status AroReducer::Restore(engine::SnapshotReader& reader) {
  auto j = reader.ReadJson();
  if (!j.ok()) return j.status();
  if (!j->is_object()) return absl::DataLossError("aro snapshot: expected a JSON object");
  cluster_generation_ = Str(*j, "clusterGeneration");
  cluster_spec_ = Str(*j, "clusterSpec");
  status_.FromJson(engine::Path(*j, {"status"}));
  subnets_.FromJson(engine::Path(*j, {"subnets"}));
  internet_.FromJson(engine::Path(*j, {"internet"}));
  sp_.FromJson(engine::Path(*j, {"servicePrincipal"}));
  webhook_.FromJson(engine::Path(*j, {"alertWebhook"}));
  geneva_.FromJson(engine::Path(*j, {"genevaLogging"}));
  cluster_operator_.FromJson(engine::Path(*j, {"clusterOperator"}));
  DeferredFromJson(engine::Path(*j, {"deferredObjects"}));
  return absl::OkStatus();
}

}  // namespace recon::aro
