// The objects ARO's Geneva logging writes (mdsd era), built as the
// upstream version recon follows builds them (geneva_config.h names it;
// tests/domains/aro/geneva_upstream_test.cc compares with upstream's own
// output): SCC, Namespace, ConfigMap, Secret, ServiceAccount, DaemonSet,
// in upstream's create order, each owned by the Cluster.
#ifndef RECON_DOMAINS_ARO_GENEVA_OBJECTS_H_
#define RECON_DOMAINS_ARO_GENEVA_OBJECTS_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/json.h"
#include "engine/secret_view.h"
#include "engine/world.h"

namespace recon::aro {

inline constexpr std::string_view kLoggingNamespace = "openshift-azure-logging";
// The pod template annotation that rolls mdsd when the certificates change.
inline constexpr std::string_view kSecretChecksum = "checksum/secret-certificates";

// The checksum of the operator Secret's certificate and key, as upstream
// computes it for `certificates` (a copy of the same two keys); the
// redactor computes it before the values are hidden.
engine::SecretView GenevaCertificatesView();

// The desired objects in creation order, or the error that blocks them
// (upstream's reads in its order: the operator Secret, the privileged SCC,
// the Cluster's resourceId, the ClusterVersion). Without the certificates
// view (a log recorded before it existed) the DaemonSet lacks
// kSecretChecksum.
absl::StatusOr<std::vector<engine::Json>> GenevaDesiredObjects(const engine::World& world,
                                                               const engine::Object& cluster);

}  // namespace recon::aro

#endif  // RECON_DOMAINS_ARO_GENEVA_OBJECTS_H_
