// Where a command's log lives: `--store DIR` (RocksDB) or `--store
// etcd://HOST:PORT[,HOST:PORT…]/PREFIX` (a real etcd v3 cluster,
// store/FORMAT-etcd.md), with etcd's TLS and credentials from
// --etcd-cacert, --etcd-cert, --etcd-key, --etcd-user and the password from
// --etcd-password-file or RECON_ETCD_PASSWORD (never a flag value, never in
// a message), and --etcd-quota-bytes: the cluster's quota, which etcd does
// not report.
#ifndef RECON_CLI_STORE_OPEN_H_
#define RECON_CLI_STORE_OPEN_H_

#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cli/args.h"
#include "runtime/redact.h"
#include "store/event_store.h"
#include "store/kv_backend.h"

namespace recon::cli {

// The flags every command that takes --store also takes.
const std::set<std::string>& EtcdStoreFlags();

struct StoreFlags {
  std::string cacert, cert, key, user, password_file;
  std::string quota_bytes;  // etcd's --quota-backend-bytes, when not its default (runtime/store_room.h)
};
StoreFlags StoreFlagsFrom(const Args& args);

bool IsEtcdStore(std::string_view where);

enum class StoreAccess {
  kRead,    // reads only: an etcd reader takes no term and writes nothing
  kWrite,   // appends or snapshots: an etcd writer takes a new term (fencing earlier writers)
  kCreate,  // kWrite, creating the store when there is none
};

// A client of the etcd cluster an etcd:// store names, and its prefix.
struct EtcdTarget {
  std::shared_ptr<store::KvBackend> kv;
  std::string prefix;
};
absl::StatusOr<EtcdTarget> ConnectEtcd(const std::string& where, const StoreFlags& flags);

// Opens the store `where` names. Errors name the directory or the etcd
// endpoints and say what was expected; nothing is written before the store
// is known to be one of recon's (or empty and kCreate).
absl::StatusOr<std::unique_ptr<store::EventStore>> OpenStoreAt(const std::string& where, StoreAccess access,
                                                               std::string_view durability = "sync",
                                                               const StoreFlags& flags = {});

// The redaction key of the store `where` names (engine/REDACTION.md): the
// key file of a RocksDB directory, or the key an etcd store keeps beside its
// log (runtime::Redactor::ForLog).
absl::StatusOr<runtime::Redactor> RedactorFor(const std::string& where, store::EventStore& store);

}  // namespace recon::cli

#endif  // RECON_CLI_STORE_OPEN_H_
