#include "shadow/report.h"

#include "base/strings.h"
#include "engine/replay.h"

namespace recon::shadow {
namespace {

// One comparator fed by a replay; the findings end sorted.
struct Run {
  Run(const engine::Engine& engine, Options options) : engine(engine), comparator(options) {
    report.options = std::move(options);
  }
  engine::StepSink Sink() {
    return [this](const engine::Event& e, std::span<const engine::ActionRecord> actions) {
      comparator.Observe(e, actions, &engine.world());
      ++report.events;
      for (auto& f : comparator.TakeDecided()) report.findings.push_back(std::move(f));
    };
  }
  Report Finish() {
    for (auto& f : comparator.Open()) report.findings.push_back(std::move(f));
    SortFindings(&report.findings);
    return std::move(report);
  }
  const engine::Engine& engine;
  Comparator comparator;
  Report report;
};

}  // namespace

std::map<std::string, std::map<std::string, uint64_t>> Report::Counts() const {
  std::map<std::string, std::map<std::string, uint64_t>> out;
  for (const auto& f : findings) {
    auto& c = out[f.domain];
    if (c.empty()) {
      for (Result r :
           {Result::kMatch, Result::kDiffers, Result::kMissed, Result::kUnpredicted, Result::kPending})
        c[std::string(ResultName(r))] = 0;
    }
    ++c[std::string(ResultName(f.result))];
  }
  return out;
}

absl::StatusOr<Report> CompareRecords(engine::Engine& engine, std::span<const engine::EventRecord> events,
                                      Options options) {
  Run run(engine, std::move(options));
  if (auto s = engine::ReplayRecordSteps(engine, events, store::kEndOfLog, run.Sink()); !s.ok()) return s;
  return run.Finish();
}

absl::StatusOr<Report> CompareStore(engine::Engine& engine, store::EventStore& st, Options options) {
  Run run(engine, std::move(options));
  if (auto s = engine::ReplayStoreSteps(engine, st, store::kEndOfLog, run.Sink()); !s.ok()) return s;
  return run.Finish();
}

}  // namespace recon::shadow
