#include "runtime/replay_pipeline.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
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

// One event decoded: views into the store record's aligned copy (owned
// here) or into the caller's record, its Content files when read from the
// store, its body parsed ahead when its kind's bodies are read.
struct Decoded {
  Event event;
  std::optional<records::EventView> view;
  records::ContentFiles files;
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

// Which kinds the reducers read the bodies of, learned by the engine stage
// and read by the decode stage: only those are parsed ahead (a parse no
// reducer reads costs its building on one thread and its freeing on the
// other, and most of a log's objects may be of kinds no domain reads). A
// kind is parsed ahead while at least half of its bodies so far were read.
// Only the speed depends on it, never the output.
class ReadKinds {
 public:
  // The engine stage, after each Added or Modified event.
  void Saw(std::string_view group, std::string_view kind, bool read) {
    key_.assign(group);
    key_.push_back('/');
    key_.append(kind);
    auto it = counts_.find(key_);
    if (it == counts_.end()) it = counts_.emplace(key_, Count{}).first;
    Count& c = it->second;
    ++c.events;
    c.reads += read;
    const bool on = 2 * c.reads >= c.events;
    if (on == c.on) return;
    c.on = on;
    std::lock_guard<std::mutex> lock(mu_);
    if (on) {
      on_.insert(key_);
    } else {
      on_.erase(key_);
    }
    version_.fetch_add(1, std::memory_order_release);
  }

  // The decode stage's copy, refreshed when it changed.
  struct View {
    std::set<std::string, std::less<>> on;
    uint64_t version = 0;
    std::string key;
    bool Parse(const Event& e) {
      if (e.type != records::EventType::kAdded && e.type != records::EventType::kModified) return false;
      key.assign(e.group);
      key.push_back('/');
      key.append(e.kind);
      return on.contains(key);
    }
  };
  void Refresh(View* v) const {
    if (version_.load(std::memory_order_acquire) == v->version) return;
    std::lock_guard<std::mutex> lock(mu_);
    v->on = on_;
    v->version = version_.load(std::memory_order_relaxed);
  }

 private:
  struct Count {
    uint64_t events = 0, reads = 0;
    bool on = false;
  };
  std::map<std::string, Count, std::less<>> counts_;  // the engine stage's alone
  std::string key_;
  mutable std::mutex mu_;
  std::set<std::string, std::less<>> on_;  // guarded by mu_
  std::atomic<uint64_t> version_{0};
};

// The body parsed ahead when its kind's bodies are read (ReadKinds).
void ParseAhead(Decoded* d, ReadKinds::View* kinds) {
  if (!kinds->Parse(d->event)) return;
  auto j = ParseJson(d->event.body);
  d->event.parsed = std::make_shared<const Json>(j.ok() ? *std::move(j) : Json());
}

absl::Status DecodeStored(store::EventStore& st, std::string_view payload, uint64_t seq,
                          ReadKinds::View* kinds, Decoded* out) {
  static const std::string kEmpty = records::ContentDigest(records::ContentFiles{});
  auto view = records::EventView::Parse(payload);
  if (!view.ok()) return absl::DataLossError(StrCat("seq ", seq, ": ", Sv(view.status().message())));
  out->view.emplace(*std::move(view));
  out->event = Event::FromCapnp(out->view->reader());  // views into the view's heap copy: it moves with it
  out->event.seq = seq;
  const Event& e = out->event;
  if (e.type == records::EventType::kContent && e.content_files == nullptr && e.content_digest != kEmpty) {
    auto files = st.GetContent(e.content_digest);
    if (!files.ok()) return absl::DataLossError(StrCat("seq ", seq, ": ", Sv(files.status().message())));
    out->files = *std::move(files);
  }
  ParseAhead(out, kinds);
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

void DecodeStore(store::EventStore& st, uint64_t from, uint64_t until, const ReadKinds* read, Channel* ch) {
  Batcher out(ch);
  ReadKinds::View kinds;
  auto it = st.ReadEvents(from, until);
  if (!it.ok()) return out.Finish(it.status());
  for (uint64_t n = 0; (*it)->Valid(); (*it)->Next(), ++n) {
    if (n % kBatchEvents == 0) read->Refresh(&kinds);
    Decoded d;
    if (auto s = DecodeStored(st, (*it)->payload(), (*it)->seq(), &kinds, &d); !s.ok()) return out.Finish(s);
    if (!out.Add(std::move(d))) return;
  }
  out.Finish((*it)->status());
}

void DecodeRecords(std::span<const records::EventRecord> events, uint64_t from, uint64_t until,
                   const ReadKinds* read, Channel* ch) {
  Batcher out(ch);
  ReadKinds::View kinds;
  for (uint64_t seq = from; seq <= events.size() && seq <= until; ++seq) {
    if ((seq - from) % kBatchEvents == 0) read->Refresh(&kinds);
    Decoded d;
    d.event = Event::FromRecord(seq, events[seq - 1]);
    ParseAhead(&d, &kinds);
    if (!out.Add(std::move(d))) return;
  }
  out.Finish(absl::OkStatus());
}

// The engine stage: steps each event in order as the decode stage hands it
// over; after each object's Step, drops a parse made ahead that no reducer
// read and tells `read` whether its body was read.
absl::Status Reduce(engine::Engine& engine, Channel& ch, const StepSink& steps, ReadKinds* read) {
  absl::Status status;
  std::vector<records::ActionRecord> actions;
  for (bool last = false; !last && status.ok();) {
    Batch b = ch.Take();
    last = b.last;
    for (Decoded& d : b.events) {
      actions.clear();
      Event& e = d.event;
      if (!d.files.empty()) e.content_files = &d.files;
      const bool ahead = e.parsed != nullptr;
      if (status = engine.Step(e, &actions); !status.ok()) break;
      if (e.type == records::EventType::kAdded || e.type == records::EventType::kModified) {
        const engine::Object* o = engine.world().Get(e.group, e.kind, e.ns, e.name);
        read->Saw(e.group, e.kind, o != nullptr && (ahead ? o->ReleaseUnread() : o->parse_cached()));
      }
      e.parsed.reset();
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
  ReadKinds read;
  std::thread decoder(DecodeStore, std::ref(st), from, until, &read, &ch);
  absl::Status status = Reduce(engine, ch, steps, &read);
  decoder.join();
  return status;
}

absl::Status ReplayRecordsPipelined(engine::Engine& engine, std::span<const records::EventRecord> events,
                                    uint64_t until, const StepSink& steps) {
  Channel ch;
  ReadKinds read;
  std::thread decoder(DecodeRecords, events, engine.last_seq() + 1, until, &read, &ch);
  absl::Status status = Reduce(engine, ch, steps, &read);
  decoder.join();
  return status;
}

}  // namespace recon::runtime
