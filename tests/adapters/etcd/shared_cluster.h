// The one etcd cluster a test program shares (started on first use, killed
// when the program exits), and a client of all its members.
#ifndef RECON_TESTS_ADAPTERS_ETCD_SHARED_CLUSTER_H_
#define RECON_TESTS_ADAPTERS_ETCD_SHARED_CLUSTER_H_

#include <memory>

#include "adapters/etcd/etcd_kv.h"
#include "tests/adapters/etcd/etcd_cluster.h"

namespace recon::etcd::testing {

// The 3-member cluster, or why it could not start (every test then fails
// with that reason).
absl::StatusOr<EtcdCluster*> SharedCluster();
// A client of every member of the shared cluster.
absl::StatusOr<std::shared_ptr<EtcdKv>> SharedKv();

}  // namespace recon::etcd::testing

#endif  // RECON_TESTS_ADAPTERS_ETCD_SHARED_CLUSTER_H_
