// A real etcd cluster on loopback for tests: Debian's etcd-server
// (scripts/setup installs it), N members on free ports with their own data
// directories, killed and removed at the end. One start serves a whole test
// program (tests/adapters/etcd/CMakeLists: one ctest entry).
#ifndef RECON_TESTS_ADAPTERS_ETCD_ETCD_CLUSTER_H_
#define RECON_TESTS_ADAPTERS_ETCD_ETCD_CLUSTER_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace recon::etcd::testing {

class EtcdCluster {
 public:
  // Starts `members` and waits until the cluster takes a write. `tls`:
  // clients reach it over https with a server certificate for 127.0.0.1
  // signed by a CA made for it (ca_file()).
  static absl::StatusOr<std::unique_ptr<EtcdCluster>> Start(int members = 3, bool tls = false);
  ~EtcdCluster();

  int size() const { return static_cast<int>(members_.size()); }
  // The CA that signed the members' certificates ("" without TLS).
  const std::string& ca_file() const { return ca_file_; }
  // A new CA's certificate in `dir` (which signed nothing of this cluster's).
  static absl::StatusOr<std::string> MakeCa(const std::string& dir, const std::string& name);
  // "http(s)://127.0.0.1:PORT" of each member.
  std::vector<std::string> endpoints() const;
  // "127.0.0.1:P1,127.0.0.1:P2,…" for an etcd:// URL.
  std::string hosts() const;

  void Kill(int member);             // SIGKILL, and reaped
  absl::Status Restart(int member);  // again on its data directory
  bool running(int member) const { return members_[member].pid > 0; }
  // Waits until every running member answers and a write commits.
  absl::Status WaitHealthy();

 private:
  struct Member {
    std::string name, dir, log;
    int client_port = 0, peer_port = 0;
    pid_t pid = -1;
  };
  EtcdCluster() = default;
  absl::Status Spawn(int member, bool fresh);

  std::string root_;  // removed at the end
  std::string binary_;
  std::string initial_cluster_;
  bool tls_ = false;
  std::string ca_file_, cert_file_, key_file_;
  std::vector<Member> members_;
};

}  // namespace recon::etcd::testing

#endif  // RECON_TESTS_ADAPTERS_ETCD_ETCD_CLUSTER_H_
