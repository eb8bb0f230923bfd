// KvBackend on a real etcd v3 cluster, through its JSON gateway
// (POST /v3/kv/range, /v3/kv/txn, /v3/kv/compaction, /v3/watch,
// /v3/maintenance/status, /v3/auth/authenticate) over the project's HTTP
// client; why the gateway and not gRPC: store/FORMAT-etcd.md.
//
// Calls are synchronous: each is sent on the client's own IoLoop thread
// and waited for. An endpoint that does not answer (no connection, a
// timeout, 502/503) hands the call to the next one listed; the one that
// answered is tried first next time. A transaction retried that way may
// already have been applied by the first: the store's compares make that
// harmless (store/FORMAT-etcd.md "Commit protocol"). Credentials (the
// password, the auth token, a client key) never appear in a status,
// log line or Describe().
#ifndef RECON_ADAPTERS_ETCD_ETCD_KV_H_
#define RECON_ADAPTERS_ETCD_ETCD_KV_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "adapters/http/http_client.h"
#include "adapters/http/io_loop.h"
#include "store/kv_backend.h"

namespace recon::etcd {

struct EtcdConfig {
  std::vector<std::string> endpoints;  // "http://127.0.0.1:2379", "https://…"; tried in order
  std::string ca_file, cert_file, key_file;
  std::string user, password;  // password: from a file or RECON_ETCD_PASSWORD, never a flag
  int64_t request_timeout_ms = 10'000;
  // "etcd http://a:2379,http://b:2379 (TLS, user recon)": safe to log.
  std::string Describe() const;
};

// Parses "etcd://HOST:PORT[,HOST:PORT…]/PREFIX" into endpoints (https when
// `tls`) and the prefix; errors say what was expected.
struct EtcdUrl {
  std::vector<std::string> endpoints;
  std::string prefix;
};
absl::StatusOr<EtcdUrl> ParseEtcdUrl(std::string_view url, bool tls);

class EtcdKv final : public store::KvBackend {
 public:
  // Starts the client's loop; authenticates when a user is given. Fails
  // with the endpoints and what went wrong when none answers.
  static absl::StatusOr<std::unique_ptr<EtcdKv>> Connect(EtcdConfig config);
  ~EtcdKv() override;

  absl::StatusOr<store::RangeResult> Range(const store::KeyRange& range, int64_t limit = 0) override;
  absl::StatusOr<store::TxnResult> Txn(const std::vector<store::Compare>& compares,
                                       const std::vector<store::TxnOp>& success,
                                       const std::vector<store::TxnOp>& failure = {}) override;
  absl::Status Compact(int64_t revision) override;
  absl::StatusOr<store::KvStatus> Status() override;
  // `on_change` runs on the client's own thread: it must not call the
  // client (such a call fails at once as unanswered).
  uint64_t Watch(std::string key, WatchFn on_change) override;
  void Unwatch(uint64_t id) override;

  // The endpoint the last call was answered by.
  std::string current_endpoint() const;

 private:
  struct Answer;
  struct WatchState;
  explicit EtcdKv(EtcdConfig config);

  absl::Status Authenticate();
  // POSTs `body` to `path`, failing over between endpoints; the parsed
  // JSON body of a 200, or the error etcd gave.
  absl::StatusOr<std::string> Call(std::string_view path, std::string body);
  Answer SendOnce(size_t endpoint, std::string_view path, const std::string& body);
  void StartWatch(uint64_t id);  // loop thread
  void OnWatchData(uint64_t id, std::string_view chunk);

  const EtcdConfig config_;
  http::IoLoop loop_;
  std::vector<std::unique_ptr<http::HttpClient>> clients_;  // one per endpoint, used on the loop thread
  std::atomic<size_t> current_{0};
  std::mutex token_mu_;
  std::string token_;  // from /v3/auth/authenticate; never logged

  std::mutex watch_mu_;
  uint64_t next_watch_ = 1;
  std::map<uint64_t, std::shared_ptr<WatchState>> watches_;
};

}  // namespace recon::etcd

#endif  // RECON_ADAPTERS_ETCD_ETCD_KV_H_
