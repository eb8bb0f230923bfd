// Which namespaces' CSVs an event of a cluster-scoped object concerns
// (csvLifecycle), kept beside the world so that a CRD or RBAC change wakes
// the CSV syncs of those namespaces only, not of every namespace with a CSV
// (with N subscriptions that made each such event cost O(N) syncs, and a
// run O(N^2)). Derived from the world alone: built on first use, followed
// event by event, cleared on Restore.
//   - a CRD: the namespaces of the CSVs that own or require it by name
//     (spec.customresourcedefinitions, the requirement check's lookups);
//   - a ClusterRole: the namespaces of the RoleBindings that refer to it,
//     and of the ServiceAccounts the ClusterRoleBindings that refer to it
//     bind (the permission check's paths to its rules);
//   - a ClusterRoleBinding: the namespaces of the ServiceAccounts it binds,
//     before and after the change;
//   - any of them labelled as a CSV's (olm.owner.kind ClusterServiceVersion):
//     that CSV's namespace. These labels also answer which cluster-scoped
//     objects a CSV owns (the component labels, adoption.cc): a
//     cluster-scoped object cannot have a namespaced owner reference.
#ifndef RECON_DOMAINS_OLM_CLUSTER_REFS_H_
#define RECON_DOMAINS_OLM_CLUSTER_REFS_H_

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/world.h"

namespace recon::olm {

class ClusterRefs {
 public:
  // Every object of the kinds kept (after a Restore, or on first use).
  void Build(const engine::World& world);
  void Clear() {
    entries_.clear();
    crd_users_.clear();
    role_users_.clear();
    owned_.clear();
  }
  // The object as the world has it now (erased if gone). Adds to `wake`
  // the namespaces whose CSVs it concerns, as it was and as it is; false
  // for kinds the index does not keep.
  bool Update(const engine::World& world, std::string_view group, std::string_view kind, std::string_view ns,
              std::string_view name, std::set<std::string>* wake);
  // The names of the objects of cluster-scoped `group`/`kind` labelled as
  // CSV ns/csv's, in name order (null if none).
  const std::set<std::string>* OwnedBy(std::string_view ns, std::string_view csv, std::string_view group,
                                       std::string_view kind) const;

 private:
  // What one object adds to the index.
  struct Entry {
    std::vector<std::string> crds;                               // a CSV's CRD names
    std::vector<std::pair<std::string, std::string>> role_uses;  // (ClusterRole, namespace)
    std::set<std::string> subjects;                              // a ClusterRoleBinding's SA namespaces
    std::string owner;                                           // "ns/csv" of an olm.owner label
  };
  Entry EntryOf(const engine::Object& o) const;
  void Add(const std::string& key, const Entry& e, int sign);
  // The namespaces an object's entry wakes (its owner's, a binding's subjects').
  void Wake(std::string_view kind, const Entry& e, std::set<std::string>* wake) const;

  std::map<std::string, Entry, std::less<>> entries_;  // by group/kind/ns/name
  // CRD name -> namespace -> how many CSVs there name it.
  std::map<std::string, std::map<std::string, int>, std::less<>> crd_users_;
  // ClusterRole name -> namespace -> how many bindings there refer to it.
  std::map<std::string, std::map<std::string, int>, std::less<>> role_users_;
  // "ns/csv" -> "group/kind" -> names of the cluster-scoped objects labelled as its.
  std::map<std::string, std::map<std::string, std::set<std::string>, std::less<>>, std::less<>> owned_;
};

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CLUSTER_REFS_H_
