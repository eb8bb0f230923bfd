#include "engine/replay.h"

#include <map>

#include "base/strings.h"
#include "engine/jsonl_writer.h"
#include "records/codec.h"

namespace recon::engine {

namespace {

StepSink EachAction(const ActionSink& sink) {
  if (!sink) return nullptr;
  return [&sink](const Event&, std::span<const records::ActionRecord> actions) {
    for (const auto& a : actions) sink(a);
  };
}

}  // namespace

absl::Status ReplayRecords(Engine& engine, std::span<const records::EventRecord> events, uint64_t until,
                           const ActionSink& sink) {
  return ReplayRecordSteps(engine, events, until, EachAction(sink));
}

absl::Status ReplayRecordSteps(Engine& engine, std::span<const records::EventRecord> events, uint64_t until,
                               const StepSink& steps) {
  std::vector<records::ActionRecord> actions;
  for (uint64_t seq = engine.last_seq() + 1; seq <= events.size() && seq <= until; ++seq) {
    actions.clear();
    Event e = Event::FromRecord(seq, events[seq - 1]);
    if (auto s = engine.Step(e, &actions); !s.ok()) return s;
    if (steps) steps(e, actions);
  }
  return absl::OkStatus();
}

absl::Status ReplayStore(Engine& engine, store::EventStore& st, uint64_t until, const ActionSink& sink,
                         bool record) {
  return ReplayStoreSteps(engine, st, until, EachAction(sink), record);
}

absl::Status ReplayStoreSteps(Engine& engine, store::EventStore& st, uint64_t until, const StepSink& steps,
                              bool record) {
  engine.set_content_resolver([&st](std::string_view digest) { return st.GetContent(digest); });
  uint64_t from = engine.last_seq() + 1;
  if (from < st.FirstSeq()) {
    return absl::FailedPreconditionError(recon::StrCat(
        "the log starts at seq ", st.FirstSeq(), " (a prefix was compacted); replay from the snapshot"));
  }
  auto it = st.ReadEvents(from, until);
  if (!it.ok()) return it.status();
  std::vector<records::ActionRecord> actions;
  for (; (*it)->Valid(); (*it)->Next()) {
    auto view = records::EventView::Parse((*it)->payload());
    if (!view.ok())
      return absl::DataLossError(recon::StrCat("seq ", (*it)->seq(), ": ", Sv(view.status().message())));
    actions.clear();
    Event e = Event::FromCapnp(view->reader());
    e.seq = (*it)->seq();
    if (auto s = engine.Step(e, &actions); !s.ok()) return s;
    if (record && !actions.empty()) {
      if (auto s = st.AppendActions(actions); !s.ok()) return s;
    }
    if (steps) steps(e, actions);
  }
  return (*it)->status();
}

absl::StatusOr<uint64_t> RestoreFromStore(Engine& engine, store::EventStore& st, uint64_t until) {
  auto snap = st.GetSnapshot();
  if (!snap.ok()) return snap.status();
  if (!snap->has_value() || (*snap)->seq > until) return 0;
  if (auto s = engine.Restore((*snap)->data); !s.ok()) return s;
  return (*snap)->seq;
}

absl::StatusOr<std::vector<records::ActionRecord>> RecordedActions(store::EventStore& st, uint64_t until) {
  std::vector<records::ActionRecord> out;
  auto it = st.ReadActions(0, until);
  if (!it.ok()) return it.status();
  for (; (*it)->Valid(); (*it)->Next()) {
    auto a = records::DecodeAction((*it)->payload());
    if (!a.ok()) return a.status();
    out.push_back(std::move(*a));
  }
  if (!(*it)->status().ok()) return (*it)->status();
  return out;
}

std::vector<Divergence> DiffActions(const std::vector<records::ActionRecord>& left,
                                    const std::vector<records::ActionRecord>& right) {
  std::map<uint64_t, Divergence> by_cause;
  for (const auto& a : left) by_cause[a.cause_seq].left.push_back(ActionToJsonl(a));
  for (const auto& a : right) by_cause[a.cause_seq].right.push_back(ActionToJsonl(a));
  std::vector<Divergence> out;
  for (auto& [seq, d] : by_cause) {
    if (d.left == d.right) continue;
    d.seq = seq;
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace recon::engine
