#include "shadow/report.h"

#include <algorithm>

#include "base/strings.h"
#include "engine/emit.h"
#include "engine/replay.h"

namespace recon::shadow {
namespace {

// One comparator fed by a replay; the findings end sorted.
struct Run {
  Run(const engine::Engine& engine, Options options, const AuditInput* audit)
      : engine(engine), comparator(options), audit(audit) {
    report.options = std::move(options);
  }
  engine::StepSink Sink() {
    return [this](const engine::Event& e, std::span<const engine::ActionRecord> actions) {
      ++report.events;
      if (audit != nullptr) {
        Record(e, actions);
        return;
      }
      comparator.Observe(e, actions, &engine.world());
      for (auto& f : comparator.TakeDecided()) report.findings.push_back(std::move(f));
    };
  }
  // Judged on the audit log: what each prediction would have sent.
  void Record(const engine::Event& e, std::span<const engine::ActionRecord> actions) {
    event_times.push_back(std::max(e.time_ns, event_times.empty() ? e.time_ns : event_times.back()));
    for (const auto& a : actions) {
      if (a.verb != "create" && a.verb != "update" && a.verb != "updateStatus" && a.verb != "delete") continue;
      PredictionRecord p;
      p.finding = PredictionOf(a, e.time_ns);
      auto body = engine::ParseJson(a.body);
      p.body = body.ok() ? std::move(*body) : engine::Json::object();
      predictions.push_back(std::move(p));
    }
  }
  Report Finish() {
    if (audit != nullptr) {
      report.audit = true;
      report.audit_writes = audit->writes.size();
      report.findings = CompareAudit(predictions, audit->writes, event_times, report.options, audit->options);
      return std::move(report);
    }
    for (auto& f : comparator.Open()) report.findings.push_back(std::move(f));
    SortFindings(&report.findings);
    return std::move(report);
  }
  const engine::Engine& engine;
  Comparator comparator;
  const AuditInput* audit;
  std::vector<PredictionRecord> predictions;
  std::vector<int64_t> event_times;
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

absl::StatusOr<Report> CompareRecords(engine::Engine& engine, std::span<const engine::EventRecord> events,
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
