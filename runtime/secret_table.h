// The other half of redaction (runtime/redact.h): the process that observed
// a Secret remembers, in memory only, which value each of its markers
// stands for, so a write a reducer built from markers can carry the real
// values when it leaves for the cluster. Never persisted, never logged;
// gone with the process. Lifetime and policy: engine/REDACTION.md.
#ifndef RECON_RUNTIME_SECRET_TABLE_H_
#define RECON_RUNTIME_SECRET_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "records/record.h"

namespace recon::runtime {

// What a marker (or a redacted docker config) stands for.
struct SecretValue {
  enum class Form {
    kBytes,  // a Secret data/stringData value: its bytes (base64 again where `data` wants it)
    kText,   // a string put back exactly as it was received
    kJson,   // a non-string scalar (number, boolean) by its JSON text
    // A string scalar of a YAML document (a Secret view, runtime/secret_views.h):
    // as a string, its text; inside text a reducer built (YAML), a
    // double-quoted scalar, so any value reads back as the same string.
    kYamlText,
  };
  std::string value;
  Form form = Form::kText;
};

class SecretTable {
 public:
  // Bounds: at most `max_sources` objects and `max_bytes` of values; past
  // either, the objects observed longest ago are forgotten first (their
  // markers then fail at dispatch until observed again).
  static constexpr size_t kDefaultMaxSources = 10000;
  static constexpr size_t kDefaultMaxBytes = 64u << 20;
  explicit SecretTable(size_t max_sources = kDefaultMaxSources, size_t max_bytes = kDefaultMaxBytes);

  // What one observation of `source` (an object's identity) held: replaces
  // everything recorded for it before, so a changed value's old marker is
  // forgotten unless another object still holds it.
  void Replace(const std::string& source, std::vector<std::pair<std::string, SecretValue>> entries);
  // The object was deleted.
  void Forget(const std::string& source);

  // A marker, or a redacted docker config exactly as the log holds it.
  std::optional<SecretValue> Find(std::string_view redacted) const;
  size_t size() const;     // distinct redacted strings known
  size_t sources() const;  // objects contributing
  size_t bytes() const;

  // Puts the real values into an action on its way to the cluster: every
  // string of the object that is a known marker (or a redacted docker
  // config, or text or base64-encoded JSON holding markers) becomes what it
  // stands for. A marker this process does not know leaves the action
  // untouched and gives FailedPrecondition naming the object and the field.
  // Timers, probes and deletes (sent without a body) pass unchanged.
  absl::Status Substitute(records::ActionRecord& action) const;

 private:
  struct Entry {
    SecretValue value;
    int refs = 0;
  };
  struct Source {
    std::vector<std::string> keys;
    uint64_t stamp = 0;
    size_t bytes = 0;
  };
  void ForgetLocked(const std::string& source);

  size_t max_sources_, max_bytes_;
  mutable std::mutex mu_;
  std::map<std::string, Entry, std::less<>> values_;
  std::map<std::string, Source> sources_;
  std::map<uint64_t, std::string> by_age_;  // stamp → source, oldest first
  uint64_t next_stamp_ = 0;
  size_t bytes_ = 0;
};

}  // namespace recon::runtime

#endif  // RECON_RUNTIME_SECRET_TABLE_H_
