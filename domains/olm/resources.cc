// The resource types the olm reducer reads and writes, with the verbs it
// really uses: it creates InstallPlans (and deletes the oldest, the GC of
// §10.1), writes the status of Subscriptions and InstallPlans, and keeps
// OperatorGroups' status and olm.providedAPIs annotation (the olm-operator
// half); everything else is only watched.
#include "domains/olm/reducer.h"

namespace recon::olm {

std::vector<engine::ResourceUse> OlmReducer::Resources() const {
  using engine::ResourceType;
  const std::string group(kGroup);
  const std::vector<std::string> watch = {"get", "list", "watch"};
  return {
      {ResourceType{group, "v1alpha1", "Subscription", "subscriptions", true, true, {"sub", "subs"}},
       watch,
       {"update"},
       {}},
      {ResourceType{group, "v1alpha1", "CatalogSource", "catalogsources", true, true, {"catsrc"}},
       watch,
       {},
       {}},
      {ResourceType{group, "v1alpha1", "InstallPlan", "installplans", true, true, {"ip"}},
       {"get", "list", "watch", "create", "delete"},
       {"update"},
       {}},
      {ResourceType{
           group, "v1alpha1", "ClusterServiceVersion", "clusterserviceversions", true, true, {"csv", "csvs"}},
       watch,
       {},
       {}},
      {ResourceType{group, "v1", "OperatorGroup", "operatorgroups", true, true, {"og"}},
       {"get", "list", "watch", "update"},
       {"update"},
       {}},
  };
}

}  // namespace recon::olm
