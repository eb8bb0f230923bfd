// Secrets never reach the event log: before an observation is appended, the
// values of every core v1 Secret (and of every field a domain marks
// sensitive) are replaced by a keyed hash. Key names stay, so reducers still
// see which credentials exist, and the same value under the same key gives
// the same hash, so "changed" is told from "unchanged". Design, key storage
// and the exact redacted forms: engine/REDACTION.md.
#ifndef RECON_RUNTIME_REDACT_H_
#define RECON_RUNTIME_REDACT_H_

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/secret_view.h"
#include "engine/sensitive_field.h"
#include "records/record.h"
#include "store/event_store.h"

namespace recon::engine {
class Reducer;
}  // namespace recon::engine

namespace recon::runtime {

class SecretTable;

// What every redacted value starts with; 64 lowercase hex digits follow.
inline constexpr std::string_view kRedactedPrefix = "recon-redacted:hmac-sha256:";
// The key file a store directory holds (created by Redactor::ForStore).
inline constexpr std::string_view kRedactionKeyFile = "recon-redaction.key";

class Redactor {
 public:
  // `key`: the raw HMAC key (at least 16 bytes).
  explicit Redactor(std::string key);
  // A fresh random key for this process only: hashes are not comparable
  // across restarts. The safe default when nobody passes a key.
  static Redactor WithRandomKey();
  // The key of the store in `store_dir` (`<dir>/recon-redaction.key`, 64 hex
  // digits, mode 0600), generated the first time; the directory is created
  // if missing. Everything appended to that store then hashes alike.
  static absl::StatusOr<Redactor> ForStore(const std::string& store_dir);
  // The key a store keeps beside its log (its aux record `redaction-key`,
  // 64 hex digits, never exported), generated the first time: for a store
  // that is not a directory (etcd).
  static absl::StatusOr<Redactor> ForLog(store::EventStore& store);
  // A key file given explicitly (same format), e.g. to share a key between
  // stores. It must exist.
  static absl::StatusOr<Redactor> FromKeyFile(const std::string& path);

  // From now on every marker this Redactor makes is recorded there with the
  // value it replaced (runtime/secret_table.h), for the dispatcher; a
  // Deleted object's entries are dropped. Copies of this Redactor share it.
  void set_secret_table(std::shared_ptr<SecretTable> table) { table_ = std::move(table); }
  const std::shared_ptr<SecretTable>& secret_table() const { return table_; }

  void AddSensitiveFields(const std::vector<engine::SensitiveField>& fields);
  void AddSecretViews(const std::vector<engine::SecretView>& views);
  // Adds every reducer's DomainDescriptor::sensitive_fields and secret_views.
  void AddDomainRulesOf(std::span<const std::unique_ptr<engine::Reducer>> reducers);

  // Redacts an object event in place (other events are left alone). A body
  // that needs redaction but is not a JSON object is replaced by a minimal
  // object naming only apiVersion, kind and metadata (the values are lost,
  // never stored). A Secret's body is stored re-serialized (compact JSON);
  // other bodies with nothing to redact keep their exact bytes. Redacting
  // twice changes nothing.
  absl::Status Redact(records::EventRecord& event) const;
  absl::Status RedactAll(std::span<records::EventRecord> events) const;
  // Whether objects of this type have anything to redact: core Secrets and
  // the kinds with sensitive fields.
  bool Covers(std::string_view group, std::string_view kind) const;
  // Redacts copies of `objects` only for the secret table's sake: the table
  // learns the values behind the markers the log already holds for them
  // (a restarted agent's unchanged Secrets). Nothing else changes.
  void Learn(std::vector<records::EventRecord> objects) const;

  // "recon-redacted:hmac-sha256:<hex>" of `value`.
  std::string Hash(std::string_view value) const;
  static bool IsRedacted(std::string_view value) { return value.starts_with(kRedactedPrefix); }

 private:
  std::string key_;
  std::vector<engine::SensitiveField> fields_;
  std::vector<engine::SecretView> views_;
  std::shared_ptr<SecretTable> table_;
};

}  // namespace recon::runtime

#endif  // RECON_RUNTIME_REDACT_H_
