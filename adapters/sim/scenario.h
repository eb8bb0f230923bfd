// A simulation scenario (schema: adapters/sim/README.md): cluster facts,
// initial objects, domain options, import/probe rules, faults, latencies and
// timed user edits. Parsed once, read-only afterwards.
#ifndef RECON_ADAPTERS_SIM_SCENARIO_H_
#define RECON_ADAPTERS_SIM_SCENARIO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/json.h"

namespace recon::sim {

using engine::Json;

struct ImportRule {
  std::string match;                // prefix of the image reference; empty matches all
  std::optional<std::string> fail;  // "unauthorized", "notfound", or any text
  std::string reason, message;      // override what `fail` implies
  std::optional<int64_t> latency_ns;
  int times = -1;  // fail only the first N matching imports (-1: always)
};

struct ProbeRule {
  std::string probe;   // exact probe name; empty matches all
  std::string target;  // exact target; empty matches all
  bool ok = true;
  std::optional<int32_t> status;
  std::string detail;
  Json data;  // null when absent
  std::optional<int64_t> latency_ns;
  int64_t after_ns = 0;    // the rule holds from scenario time `after`...
  int64_t before_ns = -1;  // ...until `before` (-1: forever)
};

struct WriteFault {
  int status = 500;
  double fraction = 0;
};

struct Faults {
  double drop_watch = 0;   // fraction of watch events never delivered
  double delay_watch = 0;  // fraction of watch events delivered late...
  int64_t delay_ns = 0;    // ...by this much (the stream stays in order)
  std::vector<WriteFault> write_errors;
  int64_t resync_ns = 0;  // relist period re-delivering dropped events (0: 5m when dropping)
};

struct Latency {
  int64_t api_ns = 1'000'000;         // ActionResult after a write
  int64_t watch_ns = 2'000'000;       // watch event after a change
  int64_t probe_ns = 100'000'000;     // Probe answer
  int64_t import_ns = 1'000'000'000;  // image import (unless a rule says)
};

struct Edit {
  enum class Op { kSet, kCreate, kDelete, kUpdate };
  int64_t at_ns = 0;  // from the scenario's start
  Op op = Op::kSet;
  Json object;       // kCreate/kUpdate: the object; kSet/kDelete: the reference
                     // (kDelete: {kind, namespace, labelSelector} deletes every match)
  std::string path;  // kSet: "spec.managementState" ("status." paths use the status subresource)
  Json value;
};

struct ReportRef {
  std::string kind, ns, name;
};

struct Scenario {
  std::string name;
  uint64_t seed = 1;
  int64_t start_ns = 0;
  Json facts = Json::object();
  std::vector<Json> objects;
  std::string samples_inventory;                             // a directory, relative to the scenario file
  std::vector<std::pair<std::string, std::string>> options;  // "domain.key" = value
  std::vector<ImportRule> imports;
  std::vector<ProbeRule> probes;
  Faults faults;
  Latency latency;
  std::vector<Edit> edits;
  std::vector<ReportRef> report;
};

// `origin` names the input in errors; relative paths resolve against `dir`.
absl::StatusOr<Scenario> ParseScenario(std::string_view text, std::string_view origin,
                                       std::string_view dir = "");
absl::StatusOr<Scenario> LoadScenario(const std::string& path);

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_SCENARIO_H_
