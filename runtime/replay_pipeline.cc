#include "runtime/replay_pipeline.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include "base/strings.h"
#include "engine/json.h"
#include "records/codec.h"

namespace recon::runtime {
namespace {

using engine::Event;
using engine::Json;
using engine::ParseJson;
using engine::StepSink;

// One decoded record (owned when read from a store, else the caller's),
// its body parsed ahead.
struct Decoded {
  uint64_t seq = 0;
  records::EventRecord owned;                      // read from a store
  const records::EventRecord* borrowed = nullptr;  // the caller's (never into `owned`: a Decoded moves)
  std::shared_ptr<const Json> parsed;
  const records::EventRecord& record() const { return borrowed ? *borrowed : owned; }
};

// A batch per hand-over: a lock per few hundred events, not per event.
struct Batch {
  std::vector<Decoded> events;
  absl::Status status;  // the decode stage's error; the last batch
  bool last = false;
};

constexpr size_t kBatchEvents = 256;
constexpr size_t kBatchesAhead = 8;  // bounds the memory the decode stage holds

// The hand-over between the stages: bounded, in order.
class Channel {
 public:
  // False when the engine stage has stopped (an error): stop decoding.
  bool Put(Batch b) {
    std::unique_lock<std::mutex> lock(mu_);
    space_.wait(lock, [&] { return queue_.size() < kBatchesAhead || closed_; });
    if (closed_) return false;
    queue_.push_back(std::move(b));
    ready_.notify_one();
    return true;
  }
  Batch Take() {
    std::unique_lock<std::mutex> lock(mu_);
    ready_.wait(lock, [&] { return !queue_.empty(); });
    Batch b = std::move(queue_.front());
    queue_.pop_front();
    space_.notify_one();
    return b;
  }
  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    space_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable ready_, space_;
  std::deque<Batch> queue_;
  bool closed_ = false;
};

// The body parsed ahead: Added and Modified objects only (what the World keeps).
void ParseAhead(Decoded* d) {
  const records::EventRecord& r = d->record();
  if (r.type != records::EventType::kAdded && r.type != records::EventType::kModified) return;
  auto j = ParseJson(r.body);
  d->parsed = std::make_shared<const Json>(j.ok() ? *std::move(j) : Json());
}

absl::Status DecodeStored(store::EventStore& st, std::string_view payload, uint64_t seq, Decoded* out) {
  static const std::string kEmpty = records::ContentDigest(records::ContentFiles{});
  auto rec = records::DecodeEvent(payload);
  if (!rec.ok()) return absl::DataLossError(StrCat("seq ", seq, ": ", Sv(rec.status().message())));
  out->seq = seq;
  out->owned = *std::move(rec);
  records::EventRecord& r = out->owned;
  if (r.type == records::EventType::kContent && r.content_files.empty() && r.content_digest != kEmpty) {
    auto files = st.GetContent(r.content_digest);
    if (!files.ok()) return absl::DataLossError(StrCat("seq ", seq, ": ", Sv(files.status().message())));
    r.content_files = *std::move(files);
  }
  ParseAhead(out);
  return absl::OkStatus();
}

// Hands decoded events over in batches; false once the engine stage stopped.
class Batcher {
 public:
  explicit Batcher(Channel* ch) : ch_(ch) {}
  bool Add(Decoded d) {
    b_.events.push_back(std::move(d));
    if (b_.events.size() < kBatchEvents) return true;
    Batch full = std::move(b_);
    b_ = Batch{};
    return ch_->Put(std::move(full));
  }
  void Finish(absl::Status status) {
    b_.status = std::move(status);
    b_.last = true;
    ch_->Put(std::move(b_));
  }

 private:
  Channel* ch_;
  Batch b_;
};

void DecodeStore(store::EventStore& st, uint64_t from, uint64_t until, Channel* ch) {
  Batcher out(ch);
  auto it = st.ReadEvents(from, until);
  if (!it.ok()) return out.Finish(it.status());
  for (; (*it)->Valid(); (*it)->Next()) {
    Decoded d;
    if (auto s = DecodeStored(st, (*it)->payload(), (*it)->seq(), &d); !s.ok()) return out.Finish(s);
    if (!out.Add(std::move(d))) return;
  }
  out.Finish((*it)->status());
}

void DecodeRecords(std::span<const records::EventRecord> events, uint64_t from, uint64_t until, Channel* ch) {
  Batcher out(ch);
  for (uint64_t seq = from; seq <= events.size() && seq <= until; ++seq) {
    Decoded d;
    d.seq = seq;
    d.borrowed = &events[seq - 1];
    ParseAhead(&d);
    if (!out.Add(std::move(d))) return;
  }
  out.Finish(absl::OkStatus());
}

// The engine stage: steps each event in order as the decode stage hands it over.
absl::Status Reduce(engine::Engine& engine, Channel& ch, const StepSink& steps) {
  absl::Status status;
  std::vector<records::ActionRecord> actions;
  for (bool last = false; !last && status.ok();) {
    Batch b = ch.Take();
    last = b.last;
    for (Decoded& d : b.events) {
      actions.clear();
      Event e = Event::FromRecord(d.seq, d.record());
      e.parsed = std::move(d.parsed);
      if (status = engine.Step(e, &actions); !status.ok()) break;
      if (steps) steps(e, actions);
    }
    if (status.ok()) status = b.status;
  }
  ch.Close();
  return status;
}

}  // namespace

absl::Status ReplayStorePipelined(engine::Engine& engine, store::EventStore& st, uint64_t until,
                                  const StepSink& steps) {
  const uint64_t from = engine.last_seq() + 1;
  if (from < st.FirstSeq()) {
    return absl::FailedPreconditionError(recon::StrCat(
        "the log starts at seq ", st.FirstSeq(), " (a prefix was compacted); replay from the snapshot"));
  }
  Channel ch;
  std::thread decoder(DecodeStore, std::ref(st), from, until, &ch);
  absl::Status status = Reduce(engine, ch, steps);
  decoder.join();
  return status;
}

absl::Status ReplayRecordsPipelined(engine::Engine& engine, std::span<const records::EventRecord> events,
                                    uint64_t until, const StepSink& steps) {
  Channel ch;
  std::thread decoder(DecodeRecords, events, engine.last_seq() + 1, until, &ch);
  absl::Status status = Reduce(engine, ch, steps);
  decoder.join();
  return status;
}

}  // namespace recon::runtime
