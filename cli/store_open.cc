#include "cli/store_open.h"

#include <cstdlib>
#include <utility>

#include "adapters/etcd/etcd_kv.h"
#include "adapters/http/rest_config.h"
#include "absl/strings/numbers.h"
#include "base/strings.h"
#include "store/etcd_store.h"
#include "store/rocksdb_store.h"

namespace recon::cli {
namespace {

absl::StatusOr<std::unique_ptr<store::EventStore>> OpenRocks(const std::string& dir, StoreAccess access,
                                                             std::string_view durability) {
  store::RocksDbOptions options;
  options.create_if_missing = access == StoreAccess::kCreate;
  if (durability == "nosync") {
    options.durability = store::Durability::kNoSync;
  } else if (durability != "sync") {
    return absl::InvalidArgumentError(
        StrCat("--durability: expected sync or nosync, got \"", durability, "\""));
  }
  auto s = store::RocksDbStore::Open(dir, options);
  if (!s.ok()) return s.status();
  return std::unique_ptr<store::EventStore>(std::move(*s));
}

// The password of --etcd-user: a file's first line, or the environment.
absl::StatusOr<std::string> Password(const StoreFlags& flags) {
  if (!flags.password_file.empty()) {
    auto text = http::ReadFile(flags.password_file);
    if (!text.ok())
      return absl::InvalidArgumentError(StrCat("--etcd-password-file: ", text.status().message()));
    std::string p = text->substr(0, text->find_first_of("\r\n"));
    if (p.empty())
      return absl::InvalidArgumentError(StrCat("--etcd-password-file ", flags.password_file, ": empty"));
    return p;
  }
  if (const char* env = std::getenv("RECON_ETCD_PASSWORD"); env != nullptr && *env != 0)
    return std::string(env);
  return absl::InvalidArgumentError(
      StrCat("--etcd-user ", flags.user,
             ": no password (give --etcd-password-file FILE or set RECON_ETCD_PASSWORD)"));
}

}  // namespace

absl::StatusOr<EtcdTarget> ConnectEtcd(const std::string& where, const StoreFlags& flags) {
  const bool tls = !flags.cacert.empty() || !flags.cert.empty();
  auto url = etcd::ParseEtcdUrl(where, tls);
  if (!url.ok()) return url.status();
  if (flags.cert.empty() != flags.key.empty()) {
    return absl::InvalidArgumentError("--etcd-cert and --etcd-key: give both or neither");
  }
  if (flags.user.empty() && !flags.password_file.empty()) {
    return absl::InvalidArgumentError("--etcd-password-file without --etcd-user");
  }
  etcd::EtcdConfig config;
  config.endpoints = url->endpoints;
  config.ca_file = flags.cacert;
  config.cert_file = flags.cert;
  config.key_file = flags.key;
  config.user = flags.user;
  if (!flags.user.empty()) {
    auto password = Password(flags);
    if (!password.ok()) return password.status();
    config.password = std::move(*password);
  }
  auto kv = etcd::EtcdKv::Connect(config);
  if (!kv.ok()) return kv.status();
  return EtcdTarget{std::shared_ptr<store::KvBackend>(std::move(*kv)), url->prefix};
}

namespace {

absl::StatusOr<std::unique_ptr<store::EventStore>> OpenEtcd(const std::string& where, StoreAccess access,
                                                            const StoreFlags& flags) {
  auto target = ConnectEtcd(where, flags);
  if (!target.ok()) return target.status();
  store::EtcdStoreOptions options;
  options.prefix = target->prefix;
  options.mode = access == StoreAccess::kRead ? store::EtcdStoreOptions::Mode::kRead
                                              : store::EtcdStoreOptions::Mode::kWrite;
  options.create_if_missing = access == StoreAccess::kCreate;
  if (!flags.quota_bytes.empty()) {
    uint64_t quota = 0;
    if (!absl::SimpleAtoi(flags.quota_bytes, &quota) || quota == 0) {
      return absl::InvalidArgumentError(StrCat("--etcd-quota-bytes: expected a positive number of bytes, got \"",
                                               flags.quota_bytes, "\""));
    }
    options.quota_bytes = quota;
  }
  auto st = store::EtcdStore::Open(std::move(target->kv), options);
  if (!st.ok()) return st.status();
  return std::unique_ptr<store::EventStore>(std::move(*st));
}

}  // namespace

const std::set<std::string>& EtcdStoreFlags() {
  static const std::set<std::string> kFlags = {"etcd-cacert", "etcd-cert", "etcd-key", "etcd-user",
                                               "etcd-password-file", "etcd-quota-bytes"};
  return kFlags;
}

StoreFlags StoreFlagsFrom(const Args& args) {
  StoreFlags f;
  f.cacert = args.GetOr("etcd-cacert", "");
  f.cert = args.GetOr("etcd-cert", "");
  f.key = args.GetOr("etcd-key", "");
  f.user = args.GetOr("etcd-user", "");
  f.password_file = args.GetOr("etcd-password-file", "");
  f.quota_bytes = args.GetOr("etcd-quota-bytes", "");
  return f;
}

bool IsEtcdStore(std::string_view where) { return where.substr(0, 7) == "etcd://"; }

absl::StatusOr<std::unique_ptr<store::EventStore>> OpenStoreAt(const std::string& where, StoreAccess access,
                                                               std::string_view durability,
                                                               const StoreFlags& flags) {
  if (IsEtcdStore(where)) {
    // etcd commits every write to a quorum's disks: --durability does not apply.
    if (durability != "sync" && durability != "nosync") {
      return absl::InvalidArgumentError(
          StrCat("--durability: expected sync or nosync, got \"", durability, "\""));
    }
    return OpenEtcd(where, access, flags);
  }
  return OpenRocks(where, access, durability);
}

absl::StatusOr<runtime::Redactor> RedactorFor(const std::string& where, store::EventStore& store) {
  return IsEtcdStore(where) ? runtime::Redactor::ForLog(store) : runtime::Redactor::ForStore(where);
}

}  // namespace recon::cli
