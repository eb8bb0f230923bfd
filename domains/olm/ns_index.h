// The olm reducer's parsed view of the OLM objects, per namespace: what a
// namespace sync (§10.1) reads, as typed fields. Each entry is made from one
// object version when its event arrives, so an event costs the one object it
// carries instead of re-reading the namespace's JSON. Derived from the World
// only (never snapshotted): rebuilt from it after a Restore.
#ifndef RECON_DOMAINS_OLM_NS_INDEX_H_
#define RECON_DOMAINS_OLM_NS_INDEX_H_

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "domains/olm/install/json_values.h"
#include "domains/olm/resolve/resolver.h"
#include "engine/json.h"
#include "engine/world.h"

namespace recon::olm {

// Subscription status fields in upstream's (Go struct) order, empty ones left out.
engine::Json Canonical(const engine::Json& s);
engine::Json CanonicalMove(engine::Json&& s);

struct SubView {
  bool valid = false;  // the body is a JSON object (else only listed)
  uint64_t seq = 0;    // the object's seq (World)
  std::string package, channel, source, source_ns, starting_csv, approval, generated_by;
  std::string uid, api_version, resource_version;
  engine::Json status;        // the observed status, Canonical; {} when absent
  bool seen_status = false;   // the observed status is a non-empty object
  bool status_exact = false;  // `status` is the observed status exactly (else in `raw`)
  engine::Json raw;           // the observed status as received, when not Canonical
  const engine::Json& Seen() const { return status_exact ? status : raw; }
};

// The facts of an InstallPlan status that a sync reads (§10.4).
struct PlanFacts {
  std::string phase, installed_message, failed_reason;
};
PlanFacts PlanFactsOf(const engine::Json& status);

struct PlanView {
  bool valid = false;
  uint64_t seq = 0;
  std::string approval;
  int64_t generation = 0;
  std::vector<std::string> csvs;  // spec.clusterServiceVersionNames
  std::vector<std::string> owners;  // uids of the Subscriptions in metadata.ownerReferences
  PlanFacts seen;                 // of the observed status
  bool seen_status = false;       // the observed status is a non-empty object
  // The unpack objects' name (install/bundle_lookup.h UnpackName) of each
  // status.bundleLookups entry: their events wake this plan's namespace.
  std::vector<std::string> unpacks;
  // While the plan runs (not Complete or Failed): the cluster-scoped
  // objects its steps name, "Kind/name" (a CRD, ClusterRole or
  // ClusterRoleBinding): their events wake this plan's namespace.
  std::vector<std::string> cluster_steps;
};

// An installed CSV as an @existing entry before the subscriptions are known
// (existing.cc): the package then comes from the subscription whose
// installedCSV names it, unless the properties annotation gave one.
struct InstalledCsv {
  ExistingCsv csv;
  bool package_from_properties = false;
};

struct CsvView {
  uint64_t seq = 0;
  std::optional<InstalledCsv> installed;  // nullopt: not in @existing (copied, or not an object)
  std::string phase, replaces;            // status.phase, spec.replaces (the fail-forward chain walk)
};

struct CatalogSourceView {
  std::string uid;
  int priority = 0;
};

struct GroupView {
  bool exclude_global = false;
  bool fail_forward = false;  // spec.upgradeStrategy.name: TechPreviewUnsafeFailForward
};

// Ordered maps: a sync iterates them in name order, as World::ListIn did.
struct NsIndex {
  std::map<std::string, SubView, std::less<>> subs;
  std::map<std::string, PlanView, std::less<>> plans;
  std::map<std::string, CsvView, std::less<>> csvs;
  std::map<std::string, CatalogSourceView, std::less<>> catalogs;
  std::map<std::string, GroupView, std::less<>> groups;
  bool Empty() const {
    return subs.empty() && plans.empty() && csvs.empty() && catalogs.empty() && groups.empty();
  }
};

// existing.cc: one CSV as an @existing entry; nullopt if copied or not an object.
std::optional<InstalledCsv> InstalledCsvOf(const engine::Object& o, const engine::Json& j);

// existing.cc, with fail-forward on (resolver/fail_forward.go, source_csvs.go
// of v0.24.0): the CSVs of the namespace left out of @existing, those in
// phase Replacing whose replacement chain (spec.replaces among the
// namespace's CSVs) ends in a Failed CSV. The walk starts at every
// non-copied CSV; a CSV on the way that is not Replacing, or a loop, is an
// error, which prevents the resolution. Where two CSVs replace the same one,
// the last by name is its replacement (upstream: the last in its informer's
// list order, which Go leaves unspecified).
absl::StatusOr<std::vector<std::string>> FailedChainCsvs(const NsIndex& x, std::string_view ns);

class OlmIndex {
 public:
  // Every OLM object of the world (after a Restore, or on first use).
  void Build(const engine::World& world);
  // The object (kind, ns, name) as the world has it now; erased if gone.
  // False for kinds the index does not keep.
  bool Update(const engine::World& world, std::string_view kind, std::string_view ns, std::string_view name);
  const NsIndex* Find(std::string_view ns) const;
  const std::map<std::string, NsIndex, std::less<>>& namespaces() const { return ns_; }
  // The namespaces with a plan whose bundle lookups use the unpack objects
  // named `name` (null if none).
  const std::set<std::string>* UnpackUsers(std::string_view name) const;
  // The namespaces with a running plan whose steps name the cluster-scoped
  // object `kind`/`name` (null if none).
  const std::set<std::string>* StepUsers(std::string_view kind, std::string_view name) const;
  void Clear() {
    ns_.clear();
    unpack_users_.clear();
  }

 private:
  void Put(const engine::Object& o);
  // Moves the namespace's entries of unpack_users_ from `before` to its plans' unpacks now.
  void Reindex(std::string_view ns, const std::set<std::string>& before);
  std::set<std::string> UnpacksOf(std::string_view ns) const;
  std::map<std::string, NsIndex, std::less<>> ns_;
  std::map<std::string, std::set<std::string>, std::less<>> unpack_users_;
};

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_NS_INDEX_H_
