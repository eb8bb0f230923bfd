#include "tests/adapters/etcd/shared_cluster.h"

#include <mutex>

#include "store/kv_backend.h"
#include "tests/store/store_contract.h"

namespace recon::etcd::testing {

absl::StatusOr<EtcdCluster*> SharedCluster() {
  static absl::StatusOr<std::unique_ptr<EtcdCluster>>* cluster = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    // Lives to the end of the program; its destructor kills the members.
    static absl::StatusOr<std::unique_ptr<EtcdCluster>> started = EtcdCluster::Start(3);
    cluster = &started;
  });
  if (!cluster->ok()) return cluster->status();
  return cluster->value().get();
}

absl::StatusOr<std::shared_ptr<EtcdKv>> SharedKv() {
  auto cluster = SharedCluster();
  if (!cluster.ok()) return cluster.status();
  EtcdConfig config;
  config.endpoints = (*cluster)->endpoints();
  auto kv = EtcdKv::Connect(config);
  if (!kv.ok()) return kv.status();
  return std::shared_ptr<EtcdKv>(std::move(*kv));
}

}  // namespace recon::etcd::testing

namespace recon::store::contract {

// The store contract suite (tests/store/store_test.cc, built into this
// program too) on the real cluster: every test a client of its own.
std::shared_ptr<KvBackend> ContractKv() {
  auto kv = etcd::testing::SharedKv();
  if (!kv.ok()) {
    ADD_FAILURE() << kv.status();
    return std::make_shared<MemoryKv>();  // the test has failed already; keep it from crashing
  }
  return *kv;
}

}  // namespace recon::store::contract
