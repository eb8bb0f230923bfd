// The reducer contract (DESIGN.md "Reducers: the contract").
//
// Pure: the same (state, event) always yields the same new state and
// actions. No clocks, files, sockets, environment, randomness or unordered
// iteration that leaks into output. "Now" is event.time_ns. Timers are
// requested as actions.
#ifndef RECON_ENGINE_REDUCER_H_
#define RECON_ENGINE_REDUCER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/emit.h"
#include "engine/event.h"
#include "engine/json.h"
#include "engine/metric_sink.h"
#include "engine/resource.h"
#include "engine/secret_view.h"
#include "engine/sensitive_field.h"
#include "engine/world.h"

namespace recon::engine {

// A reducer's state, written into a snapshot and read back.
class SnapshotWriter {
 public:
  void Write(std::string bytes) { bytes_ = std::move(bytes); }
  void WriteJson(const Json& j) { bytes_ = Dump(j); }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

class SnapshotReader {
 public:
  explicit SnapshotReader(std::string_view bytes) : bytes_(bytes) {}
  std::string_view bytes() const { return bytes_; }
  absl::StatusOr<Json> ReadJson() const { return ParseJson(bytes_); }

 private:
  std::string_view bytes_;
};

struct OptionSpec {
  std::string key;            // without the domain prefix
  std::string default_value;  // as a user would write it
  std::string help;
  // The value is a directory on the CLI; its files become a Content event
  // named `content_name` (the reducer reads it from the World, never disk).
  bool directory_content = false;
  std::string content_name;
};

// What a domain is, as the engine, the runtime and the cli need to know it
// before any event: its options, the resource types it watches and writes,
// the credential fields of what it reads, how its failed writes are handled.
struct DomainDescriptor {
  std::vector<OptionSpec> options;
  // The resource types this domain watches and writes, with the verbs it
  // uses (engine/resource.h). A live adapter lists and watches these.
  std::vector<ResourceUse> resources;
  // Fields of the objects this domain reads that hold credentials: redacted
  // like a Secret's values before the event is appended (the runtime's
  // redactor). Core v1 Secrets are always redacted; list only other kinds'.
  std::vector<SensitiveField> sensitive_fields;
  // True: the domain decides again on every failed write it sees as an
  // ActionResult (upstream's requeue on error), so the runtime does not
  // re-send its writes that failed with 429/5xx as they were. A write
  // re-emitted for the same object still waits out the object's backoff.
  bool redecides_failed_writes = false;
  // Shadow mode: conditions whose `message` this domain does not reproduce
  // word for word (an error's text, a resolver's explanation), so a
  // prediction's message there is no difference: "Kind/Type", "Kind/*", "*".
  std::vector<std::string> free_text_messages;
  // Shadow mode: lists the real operator writes in no fixed order (built
  // from a Go map), compared as sets: "Kind/path", e.g.
  // "OperatorGroup/status.namespaces".
  std::vector<std::string> unordered_lists = {};
  // Shadow mode: values recon cannot reproduce byte for byte (a hash of a
  // Go-specific dump), compared for presence only: "Kind/path", e.g.
  // "Deployment/metadata.labels[\"olm.deployment-spec-hash\"]".
  std::vector<std::string> opaque_values = {};
  // Values derived from a Secret's values that this domain reads (a
  // checksum a workload carries): computed by the redactor before the
  // values are replaced, stored in the body under "reconViews".
  std::vector<SecretView> secret_views = {};
};

class Reducer {
 public:
  virtual ~Reducer() = default;
  virtual std::string_view Domain() const = 0;
  // Asked once the options are set (the resources may depend on them).
  virtual DomainDescriptor Describe() const { return {}; }
  // Validates and applies one option ("key" without the domain prefix).
  // Unknown keys and bad values are errors that name what was expected.
  virtual absl::Status SetOption(std::string_view key, std::string_view value);
  // For `recon explain` a domain adds plain-words notes while it reduces
  // (emit.Note: what it waits on and since when, why it acted); nothing
  // may depend on them.
  virtual void Reduce(const Event& event, const World& world, Emit& emit) = 0;
  // Optional: the domain's own Prometheus series, derived from its state
  // (e.g. openshift_samples_*). Called by the agent after each burst; declare
  // families with metrics.Declare and overwrite values (ClearFamily first for
  // label sets that can disappear).
  virtual void ExportMetrics(const World& world, MetricSink& metrics) const {}
  virtual absl::Status Snapshot(SnapshotWriter& writer) const = 0;
  virtual absl::Status Restore(SnapshotReader& reader) = 0;
};

}  // namespace recon::engine

#endif  // RECON_ENGINE_REDUCER_H_
