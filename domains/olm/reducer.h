// The olm domain: OLM's catalog operator as a pure reducer.
//   reducer.cc   dispatch, snapshot, explain, catalog cache; options.cc its options
//   sync.cc      namespace sync (§10.1): inputs, skip when unchanged, status writes
//   sync_status.cc   a subscription's status and conditions (§10.4)
//   sync_resolve.cc  resolution and InstallPlan creation (§9.7)
//   plan_status.cc   a created plan's first status (ours, or ours under another
//                    writer's name), approval (§10.2)
//   existing.cc  installed CSVs → the @existing catalog (§9.1)
//   operator_group.cc  the olm operator's OperatorGroup sync (part B.1)
//   csv_sync.cc  csvLifecycle: the olm operator's CSV sync (part B.2-B.4)
//   csv_copies.cc, operator_conditions.cc, cluster_roles.cc  its copies (B.5),
//                OperatorConditions (B.6), generated ClusterRoles (B.1.5),
//   namespace_labels.cc  the groups' labels on Namespaces (B.1.6)
//   adoption.cc  the Operator API's component labels (OLM's adoption controller)
//   metrics.cc   OLM's own Prometheus series (part B.8)
//   execute.cc, plan_view.cc  executePlans: carrying plans out (§A, install/)
// Catalogs are Content events named olm/catalog/<ns>/<name>.
#ifndef RECON_DOMAINS_OLM_REDUCER_H_
#define RECON_DOMAINS_OLM_REDUCER_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "domains/olm/catalog/declcfg.h"
#include "domains/olm/cluster_refs.h"
#include "domains/olm/csv/transition.h"
#include "domains/olm/group_targets.h"
#include "domains/olm/install/plan_pass.h"
#include "domains/olm/ns_index.h"
#include "domains/olm/resolve/catalog_index.h"
#include "domains/olm/resolve/resolver.h"
#include "engine/reducer.h"

namespace recon::olm {

using engine::Emit;
using engine::Event;
using engine::Json;
using engine::World;

inline constexpr std::string_view kDomain = "olm";
inline constexpr std::string_view kGroup = "operators.coreos.com";
inline constexpr std::string_view kApiVersion = "operators.coreos.com/v1alpha1";
inline constexpr std::string_view kCsv = "ClusterServiceVersion";
inline constexpr std::string_view kOlmConfig = "OLMConfig";
// Fires to write again the Subscription statuses a 409 left held when no
// event of their namespace came since (upstream requeues with backoff).
inline constexpr std::string_view kRequeueTimer = "olm/requeue";
// The prefix of the catalogs' Content names.
inline constexpr std::string_view kCatalogPrefix = "olm/catalog/";
// executePlans: an Installing plan's next pass (upstream requeues it every 5 s).
inline constexpr std::string_view kPlansTimer = "olm/plans";
// csvLifecycle: the earliest install timeout of a CSV still Installing.
inline constexpr std::string_view kCsvTimeoutTimer = "olm/csv-install-timeout";

// A write whose effect the world may not show yet (writes are not fed back
// in a replay; a live cluster shows them a moment later).
struct PendingWrite {
  Json body;  // the status written, or the object created
  uint64_t seq = 0;
  std::string action;
  std::string resource_version;  // the write's precondition
  // The object's uid (Subscriptions): a subscription deleted and created
  // again under its name is another object, whose status our writes to the
  // old one say nothing about (a relist shows it as Modified when the
  // delete was missed).
  std::string uid;
  // Subscriptions: the observed status (Canonical) the decision was taken
  // on. While the write is held by a conflict and the world still shows
  // this status, nobody changed the status since: the decision stands
  // (PendingOver). Null when unknown (snapshots before session 13).
  Json basis;
  // Conflicts (409) and refusals of a Subscription status write, the
  // status our last landed write produced, and the refusals in a row for
  // the olm/requeue backoff are the engine's write tracker's (LastRefused,
  // LastLandedStatus, Refusals; see HeldStatus).
};

struct OlmState {
  std::map<std::string, PendingWrite> statuses;           // "<Kind>/<ns>/<name>" → last status written
  std::map<std::string, PendingWrite> created;            // "InstallPlan/<ns>/<name>" until observed deleted
  std::map<std::string, std::vector<std::string>> paths;  // "<ns>/<sub>" → CSVs resolved, in order
  // "InstallPlan/<ns>/<name>" known gone: its Deleted event was seen, or our
  // create of it failed for good (until it is seen again). A reference to
  // one is dropped at once; a reference to a plan never seen is waited for
  // (its event may come on another watch stream than the Subscription's).
  std::set<std::string> gone_plans;
  // executePlans: our creates of plan steps' objects, by StepObjectKey
  // (plan_view.h); body {"plan": "<ns>/<name>"}. Dropped when the plan
  // finishes or goes.
  std::map<std::string, PendingWrite> step_creates;
  // executePlans: "<ns>/<plan>|<StepObjectKey>" of the updates a pass sent
  // (existing CRDs and objects): upstream's pass updates each once, ours
  // runs again at every event while a create is on its way and must not
  // send them again. Dropped with the pass's status write or the plan's end.
  std::set<std::string> step_updates;
};

struct LoadedCatalog {
  std::string digest;
  std::shared_ptr<const CatalogIndex> index;
  std::string error;
};

struct NamespaceSync;  // sync_state.h
struct SyncedSub;

class OlmReducer : public engine::Reducer {
 public:
  std::string_view Domain() const override { return kDomain; }
  std::vector<engine::OptionSpec> Options() const;
  // resources.cc: what the reducer watches and writes.
  std::vector<engine::ResourceUse> Resources() const;
  engine::DomainDescriptor Describe() const override {
    return {Options(),
            Resources(),
            {},
            /*redecides_failed_writes=*/false,
            /*free_text_messages=*/{"Subscription/ResolutionFailed"},
            // The group ClusterRoles' selectors: upstream walks a Go map (§B.1.5).
            /*unordered_lists=*/
            {"OperatorGroup/status.namespaces", "ClusterRole/aggregationRule.clusterRoleSelectors"},
            // Upstream hashes Go's dump of the spec (reference §0.3).
            /*opaque_values=*/{"Deployment/metadata.labels[\"olm.deployment-spec-hash\"]"}};
  }
  absl::Status SetOption(std::string_view key, std::string_view value) override;
  // metrics.cc: OLM's own series (reference §B.8), from the world.
  void ExportMetrics(const World& world, engine::MetricSink& metrics) const override;
  // csv_upgrade_count, subscription_sync_total, catalogsource_ready.
  void ExportCounters(const World& world, engine::MetricSink& metrics) const;
  void Reduce(const Event& event, const World& world, Emit& emit) override;
  absl::Status Snapshot(engine::SnapshotWriter& writer) const override;
  absl::Status Restore(engine::SnapshotReader& reader) override;

  const OlmState& state() const { return st_; }
  // Namespace resolutions asked for by syncs; of those, the ones computed
  // (the others had the inputs of the namespace's previous resolution).
  uint64_t resolutions() const { return resolutions_; }
  size_t cached_catalog_indexes() const { return by_digest_.size(); }  // shared by digest
  uint64_t resolutions_computed() const { return resolutions_computed_; }
  // Namespace syncs, and of those the ones skipped as unchanged and quiet.
  uint64_t syncs() const { return syncs_; }
  uint64_t syncs_skipped() const { return syncs_skipped_; }
  // Off: every sync runs in full and resolves, and every CSV's roles and
  // namespace's OperatorConditions are rebuilt (tests compare both ways).
  void set_sync_cache(bool on) { sync_cache_ = on; }

 private:
  struct Ctx {
    const Event& ev;
    const World& world;
    Emit& emit;
  };

  // The effective InstallPlan (§10.4 reads only these).
  struct PlanState {
    std::string approval;
    PlanFacts facts;
  };
  // The object a status write goes to.
  struct Target {
    std::string_view kind, ns, name, api_version, resource_version;
    std::string_view uid = {};  // Subscriptions: which incarnation the write is for
  };

  // reducer.cc
  // Drops the indexes no catalog uses any more.
  void DropUnusedIndexes();
  const LoadedCatalog& Catalog(const World& world, std::string_view ns, std::string_view name);
  // Our last status write to the object if the world does not show it yet
  // (engine/write_tracker.h), else null: the observed status holds. `seq`
  // and `seen_status`: the observed object's seq and whether it has a status.
  // `observed`: the object's observed status, Canonical (Subscriptions; null for plans).
  const Json* PendingOver(const World& world, std::string_view kind, std::string_view ns,
                          std::string_view name, uint64_t seq, bool seen_status,
                          const Json* observed = nullptr) const;
  // The status of a plan we created and observed bare; true if it is ours awaiting it.
  // A bare plan another writer created with the spec of a plan of ours not
  // seen (same generation, CSVs, approval) is ours under its name (TwinCreate).
  bool WriteCreatedPlanStatus(Ctx& c, const NsIndex* x, std::string_view ns, std::string_view name);
  const std::pair<const std::string, PendingWrite>* TwinCreate(const World& w, std::string_view ns,
                                                               const PlanView& pv) const;
  // Whether a subscription of `ns` refers to the plan: in a status we wrote
  // (landed or not) or in the status the world shows.
  bool PlanStillReferenced(const NsIndex& x, std::string_view ns, std::string_view name) const;
  // The resourceVersion a write to the object goes over: the one our last
  // landed write produced while its echo is not seen, else the observed one.
  static std::string Precondition(const World& world, std::string_view kind, std::string_view ns,
                                  std::string_view name, std::string_view observed_rv);
  // The olm/requeue timer is wanted at `at` (the earliest asked for in this
  // event wins); Reduce sets it after the sync's writes.
  void RequeueAt(int64_t at) {
    requeue_at_ = requeue_at_ == 0 ? at : std::min(requeue_at_, at);
    ++requeue_asks_;
  }
  // Our last status write to a Subscription, when the server refused it
  // (409 Conflict, or another 4xx) and we have not written it since: the
  // status we decided stays in effect and is written again over a newer
  // resourceVersion (409) or once the subscription changes (other 4xx).
  static const engine::TrackedWrite* HeldStatus(const World& world, std::string_view kind,
                                                std::string_view ns, std::string_view name);
  // The resourceVersion a held write was sent over ("-" for none).
  static std::string HeldPrecondition(const engine::TrackedWrite& w);
  const Json& EffectiveSubStatus(const World& world, std::string_view ns, std::string_view name,
                                 const SubView& v) const;
  // A status write of ours to the subscription not seen back yet (nor
  // refused): the namespace syncs again at its echo.
  bool AwaitsEcho(const World& world, std::string_view ns, std::string_view name) const;
  // The InstallPlan as observed, else as created (nullopt if neither);
  // over an observed one, a status write of ours not seen back yet counts
  // unless `informer` (upstream's subscription syncer reads its cache: a
  // plan's status is what the plan's events showed once they showed one).
  std::optional<PlanState> EffectiveInstallPlan(const World& world, const NsIndex* x, std::string_view ns,
                                                std::string_view name, bool informer = false) const;
  void WriteStatus(Ctx& c, const Target& t, Json status);
  void OnInstallPlan(Ctx& c);
  // The namespaces an event makes sync (false: none, the event is not ours).
  bool OnObject(Ctx& c, std::set<std::string>& namespaces, bool* all);
  bool OnActionResult(Ctx& c, std::set<std::string>& namespaces);
  // A write refused 409 that no event may follow: the requeue timer, backed off.
  void RequeueAfterConflict(const Event& ev, const World& world);
  // A 409 on a Subscription status write: held, written again later.
  bool HoldConflictedStatus(const Event& ev, const World& world, std::set<std::string>& namespaces);
  // Another 4xx: a status write held, a create kept as a Failed plan.
  bool HoldRefused(Emit& emit, const Event& ev, std::set<std::string>& namespaces);
  // Any other failure: the write forgotten, its namespace synced again.
  bool ForgetFailedWrite(Ctx& c, std::set<std::string>& namespaces);

  // sync.cc
  // A sync whose inputs equal those of the namespace's last sync, which
  // emitted nothing, would emit nothing again: it is skipped and only its
  // explain notes are repeated. Half of the bench's events are watch echoes
  // of our own status writes that change nothing.
  void SyncNamespace(Ctx& c, const std::string& ns);
  // The sync itself: each subscription's status from what the namespace
  // shows (sync_status.cc), resolution and the InstallPlan of its new steps
  // (sync_resolve.cc), then the status writes.
  void SyncNamespaceFull(Ctx& c, const std::string& ns);
  // Everything the sync reads but the subscriptions' effective statuses
  // (compared as JSON), as text.
  std::string SyncKey(const World& world, const std::string& ns, const NsIndex* x);
  // The sync's inputs: the catalogs in scope, the valid subscriptions with
  // their effective statuses, the namespace's catalog health.
  NamespaceSync ReadNamespace(const World& world, const std::string& ns, const NsIndex* x, int64_t now);
  // Each computed status that differs from the effective one, or whose
  // held (409, refused) write is due again, is written.
  void WriteSubscriptionStatuses(Ctx& c, NamespaceSync& sync);

  // sync_status.cc: a subscription's status from what the namespace shows (§10.4).
  void ReflectNamespace(Ctx& c, const NamespaceSync& sync, SyncedSub& s);
  // ReflectNamespace on every subscription (upstream's subscription
  // syncer); true if it changed one, which is then the sync's only change.
  bool ReflectSubscriptions(Ctx& c, NamespaceSync& sync);
  // §10.1 step 2 alone (plan adoption, CSV state) on every subscription;
  // true if it moved the state of one, which is then the sync's only change.
  bool ReflectStates(Ctx& c, NamespaceSync& sync);
  // The referenced InstallPlan's phase: pending, failed, missing (or waited for).
  void ReflectInstallPlan(Ctx& c, const NamespaceSync& sync, SyncedSub& s);
  // currentCSV installed: AtLatestKnown and installedCSV (`moving`: the
  // state's move, else only installedCSV catching up with AtLatestKnown).
  void ReflectInstalledCsv(Emit& emit, const NamespaceSync& sync, SyncedSub& s, bool moving = false) const;
  // A plan recon named, observed without a status that no write of this
  // run covers (its creator stopped between Create and UpdateStatus): its
  // status written now; false when it is not such a plan.
  bool AdoptBarePlan(Ctx& c, const NamespaceSync& sync, const SyncedSub& s, const std::string& name);

  // operator_group.cc: the olm-operator's OperatorGroup sync of a namespace.
  void SyncOperatorGroups(Ctx& c, const std::string& ns);
  // status.namespaces/lastUpdated and the multiple-group condition; true if written.
  bool WriteGroupStatus(Ctx& c, const engine::Object* o, const Json& og, size_t groups_in_ns);
  // The olm.providedAPIs annotation from the namespace's CSVs (not copies).
  void WriteProvidedApis(Ctx& c, const engine::Object* o, const Json& og,
                         const std::vector<const Json*>& csvs);
  // api_intersection.cc (csvLifecycle, §B.1.4): a CSV's owned APIs against
  // its one group's olm.providedAPIs and the intersecting groups' (nullopt:
  // it owns none, or no single group); `static_group`: its group's
  // spec.staticProvidedAPIs.
  std::optional<ApiReconcile> GroupApis(const World& w, const NsIndex& x, const Json& csv,
                                        bool* static_group);
  // The APIs the groups intersecting ns/group's record.
  std::set<std::string> IntersectingApis(const World& w, std::string_view ns, std::string_view group);
  // A step's deletions of the CSV's Deployments and its group's APIs.
  void CarryOutApiStep(Ctx& c, const NsIndex& x, const CsvStep& step, const Json& csv);
  // The one group's annotations on the namespace's non-copied CSVs (issue
  // 50), for the namespaces whose group sync wrote no status (annotate_ns_).
  void AnnotateCsvs(Ctx& c, const std::string& ns);

  // csv_sync.cc (csvLifecycle): the olm operator's CSV sync (part B.2-B.4).
  // The namespaces whose CSVs an event may move on.
  // `wake`: the namespaces ClusterRefs says a cluster-scoped object's event concerns.
  void CsvNamespaces(const Event& ev, const World& world, const std::set<std::string>& wake,
                     std::set<std::string>& out) const;
  // ClusterRefs follows the event, then CsvNamespaces.
  void CsvLifecycleNamespaces(const Event& ev, const World& world, std::set<std::string>& out);
  void SyncCsvs(Ctx& c, const std::string& ns);
  void SyncCsv(Ctx& c, const NsIndex& x, const engine::Object& o);
  // csvLifecycle: the olm operator's writes added since session 28, after
  // every other write of an event (recorded logs keep their action ids).
  void OlmOperatorTail(Ctx& c, const std::set<std::string>& csv_namespaces, bool olm_config);
  // operator_conditions.cc (csvLifecycle): OperatorConditions (part B.6):
  // the generator's for each CSV of the namespace, then the reconciler's
  // Role, RoleBinding, Deployment env and status for each one there.
  void SyncOperatorConditions(Ctx& c, const std::string& ns);  // unless its inputs are a quiet run's
  void SyncOperatorConditionsNow(Ctx& c, const std::string& ns);
  void ReconcileOperatorCondition(Ctx& c, const engine::Object& o);
  // What the namespace's OperatorCondition sync reads: the seqs of its
  // CSVs, OperatorConditions and their Roles, RoleBindings and
  // Deployments, and which of those a write of ours holds.
  std::string OperatorConditionInputs(Ctx& c, const std::string& ns) const;
  // A write of ours to the object not seen back yet, or refused and not
  // due again before its next event (or the requeue timer).
  bool WriteHeld(Ctx& c, std::string_view group, std::string_view kind, std::string_view ns,
                 std::string_view name) const;
  // adoption.cc (csvLifecycle): the Operator API's component labels
  // (OLM's adoption controller) on a namespace's operators' parts.
  void AdoptComponents(Ctx& c, const std::string& ns);
  // WriteHeld for a component label (a shadow log's updates the object
  // already showed do not hold it).
  bool LabelHeld(Ctx& c, const engine::Object& o) const;
  // The label `key` set (on) or removed on the object, unless it already is.
  void SetComponentLabel(Ctx& c, const engine::Object& o, const std::string& key, bool on);
  // namespace_labels.cc (csvLifecycle): the groups' labels on Namespaces (part B.1.6).
  void LabelNamespaces(Ctx& c);
  // cluster_roles.cc (csvLifecycle): the generated ClusterRoles (part B.1.5).
  // True when it wrote (created or brought back) the role.
  bool EnsureClusterRole(Ctx& c, Json want, const std::string& subject);
  void SyncGroupClusterRoles(Ctx& c, const std::string& ns);  // the group sync's step 5
  void SyncCsvClusterRoles(Ctx& c, const std::string& ns, const std::string& name);  // a Succeeded CSV's
  // What a CSV's per-API roles are generated from and compared with: the
  // seqs of the CSV, its owned CRDs and the roles, and which role a write
  // of ours holds.
  std::string CsvRolesInputs(Ctx& c, const engine::Object& csv) const;
  void CollectGroupClusterRoles(Ctx& c);  // the event's OperatorGroup deleted: its roles
  // csv_copies.cc (csvLifecycle): copied CSVs (part B.5). After a CSV's
  // sync: its copies where its group targets, and the dangling ones gone.
  void SyncCopies(Ctx& c, const NsIndex& x, const engine::Object& o);
  void EnsureCopy(Ctx& c, const Json& parent, const std::string& ns);
  // tenant_rbac.cc (csvLifecycle): a grouped CSV's RBAC spread to its
  // targets (part B.1.5): lifted to ClusterRoles for an all-namespaces
  // group (`all`), else copied into each target where it is not granted
  // (once the CSV's copy there is seen; only a `copiable` CSV's).
  void SpreadRbac(Ctx& c, const engine::Object& o, const std::set<std::string>& targets, bool all,
                  bool copiable);
  // The event's CSV deleted (not a copy): the ClusterRoles and
  // ClusterRoleBindings labelled as its (olm.owner*: lifted ones, a plan's
  // clusterPermissions) go with it (part B.7 step 6).
  void CollectCsvClusterRbac(Ctx& c);
  // Deletes the copies of parent_ns/name that must go; `parent` null when
  // the parent is gone; `only_in`: copies are disabled but in these.
  void CollectCopies(Ctx& c, const std::string& parent_ns, const std::string& name, const Json* parent,
                     const std::set<std::string>* only_in = nullptr);
  // The OLMConfig's DisabledCopiedCSVs condition (§B.5.3), once every copy
  // write of ours is seen.
  void SyncOlmConfig(Ctx& c);
  // The event's CSV gone, or a copy of one gone: CollectCopies.
  void CollectOrphanedCopies(Ctx& c);

  // execute.cc (executePlans): the catalog operator's plan execution (§A).
  // The steps and bundle lookups of the operators a plan installs: inline
  // bundles become steps (their olm.bundle.object manifests), bundles with
  // an image become lookups. False with a note when a bundle cannot be read.
  bool BundlePlan(Ctx& c, const NamespaceSync& sync, const std::vector<const ResolvedOperator*>& ops,
                  std::vector<Json>* steps, Json* lookups);
  // A new plan's status.plan and bundleLookups from BundlePlan, the
  // dependency Subscription steps kept, OLM's step order (§A.4).
  void WithBundleSteps(Ctx& c, const NamespaceSync& sync, const std::vector<const ResolvedOperator*>& ops,
                       Json* status);
  // unpack.cc: a plan's bundle lookups moved on, its status as it would be
  // written; the unpacked bundles' steps, for the pass to resolve references.
  struct Unpacked {
    // The lookups as advanced, and status.plan when steps were added to
    // it (BundleLookupNotPersisted); the rest of the status is the
    // plan's (a pass copied the whole status, steps and all, at every
    // event of its namespace).
    Json lookups;
    std::optional<Json> plan;
    // The plan's status with these applied.
    Json StatusOver(const Json& status) const;
    bool all_unpacked = true, failed = false;
    std::string failed_reason, failed_message;
    std::string error;  // the sync's error: nothing is written
    std::string fatal;  // the plan fails (InstallCheckFailed)
    std::vector<UnpackedManifests> unpacked;
  };
  Unpacked UnpackLookups(Ctx& c, const Json& ip, const std::string& plan_key);
  // The ConfigMap, Role, RoleBinding and Job that unpack the lookup's image.
  void EnsureUnpack(Ctx& c, const Json& ip, const Json& lookup, const std::string& plan_key);
  // After a status write: the plan's creates it reports (landed, observed)
  // are forgotten. Were that write lost (a conflict with another writer),
  // upstream's next pass creates them again, gets AlreadyExists and calls
  // them Present, not Created; ours then finds them there, not its own.
  void ForgetReportedCreates(const World& world, const std::string& plan_key);
  // st_.step_creates changed only through these (they keep the indexes).
  void PutStepCreate(const std::string& key, const std::string& plan_key, uint64_t seq, const std::string& action);
  void DropStepCreate(const std::string& key);
  // The creates and updates of a plan's pass ("ns/name"), once the plan
  // is done or deleted.
  void ForgetPlanPass(const std::string& plan_key);
  // A step object's update refused (settled, not retried): the passes
  // that sent it send it again over the newer object, as upstream's next
  // sync redoes a step whose update failed.
  void ForgetRefusedUpdate(const World& world);
  // A step object this plan's pass updated whose answer has not come
  // ("Kind name"), or "".
  std::string UpdateInFlight(const World& world, const std::string& plan_key) const;
  void DropStepUpdates(const std::string& plan_key);  // the pass is over
  void IndexStepCreates();
  // Writes a plan's status after a failed unpack (phase Failed, InstallCheckFailed).
  void FailPlan(Ctx& c, const Json& ip, Json status, const std::string& message);
  // Every Installing plan of the namespace: one pass (install/plan_pass.h).
  void ExecutePlans(Ctx& c, const std::string& ns);
  void ExecutePlan(Ctx& c, const std::string& ns, const std::string& name);
  // executePlans at an event: the plan passes it ends, then the namespaces
  // whose plans it wakes (PlanNamespaces).
  void PlanEvent(const Event& ev, const World& world, std::set<std::string>& out);
  // installplan_warnings_total: an answer with warnings to a step's write.
  void CountStepWarnings(const Event& ev, const World& world);
  // The namespaces whose plans an event may move on: a step object's
  // (the namespaces whose running plans name a cluster-scoped one), or the
  // plan of an answered step create or update.
  void PlanNamespaces(const Event& ev, const World& world, std::set<std::string>& out) const;
  // The inline manifests of a bundle of a catalog (content loaded with its
  // payloads, kept per digest).
  absl::StatusOr<std::vector<Json>> InlineObjects(const World& world, std::string_view catalog_ns,
                                                  std::string_view catalog, std::string_view bundle);

  // sync_resolve.cc: resolution (§9), and the InstallPlan of its new steps (§9.7).
  void ResolveNamespace(Ctx& c, NamespaceSync& sync);
  // Every subscription's ResolutionFailed condition set to the reason.
  void FailResolution(Emit& emit, NamespaceSync& sync, std::string_view reason, const std::string& msg) const;
  // Resolve() of the namespace, or the memo of its last call with the same inputs.
  const absl::StatusOr<ResolveResult>& MemoizedResolve(const NamespaceSync& sync);
  // The resolution's operators the subscriptions do not point at yet go
  // into one InstallPlan, created or reused, that the subscriptions then reference.
  void PlanNewSteps(Ctx& c, NamespaceSync& sync, const ResolveResult& result);
  // The generation a new InstallPlan of the namespace gets.
  int64_t NextPlanGeneration(const NamespaceSync& sync) const;
  // An InstallPlan of the namespace, observed or created by us and not
  // finished, that installs exactly `csvs` with `approval`: its name (and
  // its generation in *gen), else "".
  std::string ReusablePlan(const World& world, const NsIndex* x, const std::string& ns,
                           const std::vector<std::string>& csvs, std::string_view approval,
                           int64_t* gen) const;
  // ReusablePlan, when every changed subscription owns it (else "").
  std::string ReusablePlanOf(const World& world, const NamespaceSync& sync,
                             const std::vector<std::string>& csvs, bool manual,
                             const std::vector<const SyncedSub*>& owners, int64_t* gen) const;
  // Notes of a subscription that reached its channel's head.
  void NoteNoUpgrade(Emit& emit, const NamespaceSync& sync) const;

  OlmState st_;
  std::string global_ns_ = "openshift-marketplace";
  std::map<std::string, LoadedCatalog, std::less<>> catalogs_;  // by content name (derived)
  std::map<std::string, std::shared_ptr<const CatalogIndex>> by_digest_;
  uint64_t resolutions_ = 0, resolutions_computed_ = 0, syncs_ = 0, syncs_skipped_ = 0;
  // Derived from the World, never snapshotted: rebuilt on first use after
  // construction or Restore, then kept up to date from each event's object.
  OlmIndex index_;
  bool index_ready_ = false;
  ClusterRefs refs_;  // csvLifecycle: who a cluster-scoped object concerns; derived
  GroupTargetIndex group_targets_;  // csvLifecycle: which groups' targets meet (§B.1.4); derived
  bool refs_ready_ = false;
  bool sync_cache_ = true;
  // Per namespace, the inputs of the last resolution and its result:
  // Resolve() is pure, so the same inputs give the same result.
  struct ResolveMemo {
    std::string key;
    absl::StatusOr<ResolveResult> result;
  };
  std::map<std::string, ResolveMemo, std::less<>> memo_;
  struct QuietSync {
    std::string key;
    std::vector<Json> statuses;              // effective status of each valid subscription, in name order
    std::vector<engine::ExplainNote> notes;  // when explaining
  };
  std::map<std::string, QuietSync, std::less<>> quiet_;  // derived, like memo_
  // "<ns>/<csv>" → CsvRolesInputs when its roles were last found as
  // generated: while they stay, the roles are not rebuilt (they were at
  // every sync of a Succeeded CSV: 12 % of `recon bench olm` at 30
  // subscriptions). Derived: a cold entry rebuilds and finds the same.
  std::map<std::string, std::string, std::less<>> csv_roles_found_;
  // ns → OperatorConditionInputs when its sync last did and said nothing
  // (8 % of the same run); derived, as above.
  std::map<std::string, std::string, std::less<>> conditions_found_;
  int64_t requeue_at_ = 0;                               // this event's olm/requeue (0: none); derived
  std::set<std::string> annotate_ns_;                    // this event's CSV annotation passes; derived
  // executePlans (off: the cluster's OLM carries plans out, the default before issue 49).
  bool execute_plans_ = true;
  // csvLifecycle (off: the cluster's OLM moves CSVs through their phases,
  // the default before session 31).
  bool csv_lifecycle_ = true;
  // protectedCopiedCSVNamespaces: where copies stay while OLMConfig disables them.
  std::set<std::string> protected_copy_ns_;
  // subscriptionWrites: split (upstream's two writers, each alone) or
  // combined (one write per sync, the default before issue 49's step).
  bool split_writes_ = true;
  int64_t plan_timer_at_ = 0;  // this event's olm/plans (0: none); derived
  int64_t csv_timer_at_ = 0;   // this event's olm/csv-install-timeout (0: none); derived
  // This event's Succeeded and healthy CSVs (ns, name): their per-API ClusterRoles; derived.
  std::vector<std::pair<std::string, std::string>> csv_roles_due_;
  // Step updates sent at the event being reduced, by StepObjectKey: the
  // next plan's pass reads them (PlanWorldView).
  std::map<std::string, Json> sent_updates_;
  // Derived from st_.step_creates (rebuilt by a Restore): its keys by plan
  // ("ns/name") and by action id, so that a plan's creates or an answer's
  // are found without a scan of every namespace's.
  std::map<std::string, std::set<std::string>> creates_by_plan_;
  std::map<std::string, std::string, std::less<>> create_by_action_;
  // Catalog content with its payloads, by digest (derived; inline bundles only).
  std::map<std::string, std::shared_ptr<const DeclarativeConfig>, std::less<>> payloads_;
  // The steps a lookup's unpacked bundle makes for a plan, kept while the
  // ConfigMap's resourceVersion and the lookup's fields stay: every pass of
  // a plan asked for them again (12.6 % of `recon bench olm`'s time at 20
  // subscriptions). Derived; dropped with the plan's pass. The memo is
  // looked up before the bundle's objects are read, so a pass parses the
  // ConfigMap (a bundle's manifests, kept by nothing) only on a miss.
  // Their manifests are kept parsed too (the pass parsed every step's at
  // every pass: 5 % at 30 subscriptions).
  struct StepsMemo {
    std::string sig;
    absl::StatusOr<UnpackedManifests> steps;  // configmap left empty
  };
  std::map<std::string, StepsMemo, std::less<>> steps_memo_;  // "<plan ns>/<plan>#<cm ns>/<cm>"
  // "<plan ns>/<plan>" → its step manifests parsed (PassOptions::manifests);
  // derived, dropped with the plan's pass.
  std::map<std::string, ManifestCache, std::less<>> manifest_cache_;
  // From the memo, else made of `objects`, else of the ConfigMap's objects
  // parsed now (nullopt when they cannot be read: not unpacked yet).
  std::optional<absl::StatusOr<UnpackedManifests>> StepsOf(const std::string& plan_key,
                                                           const engine::Object* cm, const Json& lookup,
                                                           const std::vector<Json>* objects,
                                                           const std::string& ns);
  // OLM's counters (metrics.cc), since the reducer was built: CSVs moved
  // to Replacing by our writes; per "<ns>/<name>", the subscription's
  // series key and its syncs since its labels last changed.
  uint64_t csv_upgrades_ = 0;
  uint64_t plan_warnings_ = 0;  // upstream's installplan_warnings_total
  std::map<std::string, std::pair<std::string, uint64_t>> sub_syncs_;
  void CountSubscriptionSyncs(const std::string& ns, const NsIndex& x);
  uint64_t requeue_asks_ = 0;                            // RequeueAt calls: a sync that waits is never quiet
};

std::unique_ptr<engine::Reducer> MakeReducer();

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_REDUCER_H_
