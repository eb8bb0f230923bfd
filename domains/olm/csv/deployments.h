// The Deployments of a CSV's install strategy as the olm operator writes
// and checks them (reference olm-operator.md §B.3.1-§B.3.3; upstream's
// deploymentForSpec, overrides.initialize, inject.*, DeploymentStatus and
// checkForDeployments at v0.24.0): the Deployment one strategy entry
// becomes, whether a live one is ready, and the drift check that sends the
// CSV back to InstallReady.
//
// The spec hash (label olm.deployment-spec-hash): upstream hashes a
// Go-specific dump of the DeploymentSpec (§0.3). Here it is fnv32a over the
// spec's compact JSON with object keys sorted and null members dropped (Go
// dumps maps sorted and structs in a fixed field order, so neither key
// order nor an explicit null may count), its decimal digits mapped to
// "bcdfghjklmnpqrstvwxz2456789" (rand.SafeEncodeString's shape:
// install/'s RbacHash).
#ifndef RECON_DOMAINS_OLM_CSV_DEPLOYMENTS_H_
#define RECON_DOMAINS_OLM_CSV_DEPLOYMENTS_H_

#include <optional>
#include <string>
#include <string_view>

#include "engine/json.h"

namespace recon::olm {

inline constexpr std::string_view kDeploymentSpecHashLabel = "olm.deployment-spec-hash";

// The status of the config.openshift.io/v1 Proxy named `cluster`.
struct ClusterProxy {
  std::string http_proxy;   // status.httpProxy
  std::string https_proxy;  // status.httpsProxy
  std::string no_proxy;     // status.noProxy
};

// What besides the CSV shapes its Deployments (§B.3.1 step 5).
struct DeploymentOverrides {
  // spec.config of the Subscription whose status.installedCSV is the CSV's
  // name: {env, volumes, volumeMounts, tolerations, resources, nodeSelector,
  // affinity}; null when there is no such Subscription or no config.
  engine::Json config;
  // nullopt when there is no Proxy named `cluster` (or no such API).
  std::optional<ClusterProxy> proxy;
};

// The Deployment (apps/v1) for one spec.install.spec.deployments[] entry
// {name, spec, label} of `csv`, as the install writes it (§B.3.1 steps
// 1-8): metadata {name, namespace, labels, ownerReferences} and spec, the
// hash label last.
engine::Json CsvDeployment(const engine::Json& csv, const engine::Json& entry,
                           const DeploymentOverrides& overrides);

// Whether `deployment` carries the CSV's three olm.owner* labels (the
// selector the olm operator finds a CSV's Deployments by).
bool HasCsvOwnerLabels(const engine::Json& deployment, const engine::Json& csv);

// Why a live Deployment is not ready yet (§B.3.2, upstream's text), or
// nullopt when it is. `*unrecoverable` (if not null) is set to whether it
// exceeded its progress deadline.
std::optional<std::string> DeploymentNotReady(const engine::Json& deployment, bool* unrecoverable);

// The classes of §B.3.3's failures. kUnrecoverable is upstream's reason
// Timeout (the one of them that fails the CSV).
enum class DeploymentDriftClass {
  kComponentMissing,
  kUnrecoverable,
  kWaiting,
  kAnnotationsMissing,
  kDeploymentUpdated
};

struct DeploymentDrift {
  DeploymentDriftClass cls;
  std::string message;  // what follows "installing: " upstream
};

// §B.3.3 for one strategy entry: the first failure, or nullopt when the
// Deployment is healthy. `live` is the Deployment named entry.name in the
// CSV's namespace, null when there is none; one without the CSV's owner
// labels (HasCsvOwnerLabels) counts as missing, as upstream finds them by
// that selector. The hash compare rebuilds the Deployment with
// CsvDeployment.
std::optional<DeploymentDrift> CheckCsvDeployment(const engine::Json& csv, const engine::Json& entry,
                                                  const DeploymentOverrides& overrides,
                                                  const engine::Json& live);

// `j` with every object's keys sorted and null members dropped: the input
// of the spec hash, and how two objects from different writers (Go's
// sorted maps, a reducer's insertion order) compare equal.
engine::Json CanonicalJson(const engine::Json& j);
// CanonicalJson(a) == CanonicalJson(b), without building either: the
// comparisons of generated objects with live ones ran at every sync.
bool CanonicalEqual(const engine::Json& a, const engine::Json& b);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CSV_DEPLOYMENTS_H_
