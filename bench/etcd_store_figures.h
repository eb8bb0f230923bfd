// Figures of the event log on an etcd cluster (`recon bench store --store
// etcd://…`, issue 51), each against a baseline in the same run: EtcdStore
// appends against raw etcd transactions of the same bytes through the same
// client, a replay's read of the log against the same events in RocksDB,
// and a 13 MB content blob written and read back.
#ifndef RECON_BENCH_ETCD_STORE_FIGURES_H_
#define RECON_BENCH_ETCD_STORE_FIGURES_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "store/kv_backend.h"

namespace recon::bench {

struct EtcdStoreFigures {
  uint64_t events = 0, batch = 0, event_bytes = 0;
  double append_events_per_s = 0;   // EtcdStore::Append, durable on the cluster
  double raw_txn_events_per_s = 0;  // the same values as raw transactions (128 puts each)
  double append_vs_raw_ratio = 0;
  double read_events_per_s = 0;          // EtcdStore::ReadEvents, every frame verified
  double rocksdb_read_events_per_s = 0;  // the same events from a RocksDbStore
  double read_vs_rocksdb_ratio = 0;
  uint64_t blob_bytes = 0;
  double blob_write_s = 0, blob_read_s = 0;
  uint64_t blob_txns = 0;  // transactions the blob's append took
  std::string ToJson() const;
};

// Under `prefix` (a fresh sub-prefix per round, deleted after); `dir` for
// the RocksDB baseline. Rounds alternate the store and its baseline.
absl::StatusOr<EtcdStoreFigures> MeasureEtcdStore(std::shared_ptr<store::KvBackend> kv,
                                                  const std::string& prefix, const std::string& dir,
                                                  size_t events, size_t batch, size_t event_bytes,
                                                  int rounds);

}  // namespace recon::bench

#endif  // RECON_BENCH_ETCD_STORE_FIGURES_H_
