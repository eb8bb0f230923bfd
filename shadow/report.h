// A shadow report: the comparison (shadow/compare.h) over a whole log,
// replayed through an engine, and its text and JSON forms. Byte-identical
// run to run: findings sorted, counts in name order.
#ifndef RECON_SHADOW_REPORT_H_
#define RECON_SHADOW_REPORT_H_

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/engine.h"
#include "shadow/audit_compare.h"
#include "shadow/compare.h"
#include "store/event_store.h"

namespace recon::shadow {

// The audit log to judge on instead of the watch (shadow/audit_compare.h).
struct AuditInput {
  std::vector<AuditedWrite> writes;  // in log order
  AuditOptions options;
};

struct Report {
  Options options;
  uint64_t events = 0;            // events compared
  // Judged on an audit log: how many writes it held (every client's).
  bool audit = false;
  uint64_t audit_writes = 0;
  // Writes that only reordered a list the operator builds from a map
  // (Comparator::reordered), not judged.
  uint64_t reordered = 0;
  std::vector<Finding> findings;  // sorted (SortFindings), pending ones included
  // domain → result name → count; every domain that predicted or was
  // written to, every result listed (0 too).
  std::map<std::string, std::map<std::string, uint64_t>> Counts() const;
};

// Replays the log (the Nth record has seq N) through `engine` and compares;
// with `audit`, the predictions are judged on its writes.
absl::StatusOr<Report> CompareRecords(engine::Engine& engine, std::span<const records::EventRecord> events,
                                      Options options, const AuditInput* audit = nullptr);
// The same over a store's whole log.
absl::StatusOr<Report> CompareStore(engine::Engine& engine, store::EventStore& st, Options options,
                                    const AuditInput* audit = nullptr);

// "shadow: 14 predictions ..." then one block per domain and the findings
// that are not matches.
std::string RenderText(const Report& report);
// {"window":"2m","events":N,"counts":{...},"findings":[...]} and a newline.
std::string RenderJson(const Report& report);

}  // namespace recon::shadow

#endif  // RECON_SHADOW_REPORT_H_
