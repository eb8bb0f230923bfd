#include "shadow/report.h"

#include <algorithm>
#include <optional>

#include "base/strings.h"
#include "engine/emit.h"
#include "engine/replay.h"
#include "shadow/audit_judge.h"

namespace recon::shadow {
namespace {

// One comparator fed by a replay (or, on an audit log, one AuditJudge);
// the findings end sorted.
struct Run {
  Run(const engine::Engine& engine, Options options, const AuditInput* audit)
      : engine(engine), comparator(options) {
    report.options = options;
    if (audit != nullptr) {
      judge.emplace(std::move(options), audit->options);
      judge->AddWrites(audit->writes);
    }
  }
  engine::StepSink Sink() {
    return [this](const engine::Event& e, std::span<const records::ActionRecord> actions) {
      ++report.events;
      if (judge) {
        judge->Observe(e, actions);
        return;
      }
      comparator.Observe(e, actions, &engine.world());
      for (auto& f : comparator.TakeDecided()) report.findings.push_back(std::move(f));
    };
  }
  Report Finish() {
    if (judge) {
      report.audit = true;
      report.audit_writes = judge->writes();
      report.findings = judge->Judge();
      return std::move(report);
    }
    for (auto& f : comparator.Open()) report.findings.push_back(std::move(f));
    SortFindings(&report.findings);
    report.reordered = comparator.reordered();
    return std::move(report);
  }
  const engine::Engine& engine;
  Comparator comparator;
  std::optional<AuditJudge> judge;
  Report report;
};

}  // namespace

std::map<std::string, std::map<std::string, uint64_t>> Report::Counts() const {
  std::map<std::string, std::map<std::string, uint64_t>> out;
  for (const auto& f : findings) {
    auto& c = out[f.domain];
    if (c.empty()) {
      for (Result r : {Result::kMatch, Result::kDiffers, Result::kMissed, Result::kUnpredicted, Result::kPending,
                       Result::kSuperseded})
        c[std::string(ResultName(r))] = 0;
    }
    ++c[std::string(ResultName(f.result))];
  }
  return out;
}

absl::StatusOr<Report> CompareRecords(engine::Engine& engine, std::span<const records::EventRecord> events,
                                      Options options, const AuditInput* audit) {
  Run run(engine, std::move(options), audit);
  if (auto s = engine::ReplayRecordSteps(engine, events, store::kEndOfLog, run.Sink()); !s.ok()) return s;
  return run.Finish();
}

absl::StatusOr<Report> CompareStore(engine::Engine& engine, store::EventStore& st, Options options,
                                    const AuditInput* audit) {
  Run run(engine, std::move(options), audit);
  if (auto s = engine::ReplayStoreSteps(engine, st, store::kEndOfLog, run.Sink()); !s.ok()) return s;
  return run.Finish();
}

}  // namespace recon::shadow
