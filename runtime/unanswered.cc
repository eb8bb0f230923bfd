#include "runtime/unanswered.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "base/strings.h"
#include "engine/emit.h"
#include "records/codec.h"
#include "runtime/work_queue.h"

namespace recon::runtime {

using engine::ActionId;
namespace {

constexpr std::string_view kMagic = "recon-unanswered-1\n";

void PutBig(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

bool GetBig(std::string_view* in, int bytes, uint64_t* v) {
  if (in->size() < static_cast<size_t>(bytes)) return false;
  *v = 0;
  for (int i = 0; i < bytes; ++i) *v = (*v << 8) | static_cast<unsigned char>((*in)[i]);
  in->remove_prefix(bytes);
  return true;
}

}  // namespace

void UnansweredScan::OnAction(records::ActionRecord a) {
  last_cause_ = std::max(last_cause_, a.cause_seq);
  if (a.verb == "setTimer") {
    std::string name = a.timer;
    timers_[name] = std::move(a);
  } else if (a.verb == "probe") {
    std::pair<std::string, std::string> key{a.probe, a.target};
    probes_[key] = std::move(a);
  } else {
    std::string key = WorkKey(a);
    key_of_[ActionId(a.cause_seq, a.index)] = key;
    writes_[key].insert_or_assign(std::make_pair(a.cause_seq, a.index), std::move(a));
  }
}

absl::Status UnansweredScan::Advance(store::EventStore& store, uint64_t to) {
  to = std::min(to, store.LastSeq());
  if (to <= through_) return absl::OkStatus();
  const uint64_t from = std::max(through_ + 1, store.FirstSeq());
  auto events = store.ReadEvents(from, to);
  if (!events.ok()) return events.status();
  auto actions = store.ReadActions(from, to);
  if (!actions.ok()) return actions.status();
  auto& ev = **events;
  auto& ac = **actions;
  // An action caused by seq s is emitted after event s is reduced, so in
  // log order it sits between event s and event s+1.
  while (ev.Valid() || ac.Valid()) {
    if (ac.Valid() && (!ev.Valid() || ac.seq() < ev.seq())) {
      auto a = records::DecodeAction(ac.payload());
      if (!a.ok()) return a.status();
      OnAction(std::move(*a));
      ac.Next();
      continue;
    }
    auto view = records::EventView::Parse(ev.payload());
    if (!view.ok()) return view.status();
    auto r = view->reader();
    switch (r.getType()) {
      case schema::EventType::ACTION_RESULT: {
        auto res = r.getActionResult();
        // A 429 or 5xx is sent again by the runtime (same action id) unless
        // its domain re-decides: not answered yet. A kill before the retry's
        // answer leaves it for the restart to settle (Interrupted), or the
        // write would be lost with the dead process's retry queue.
        if (!res.getOk() && res.getHasStatus() && (res.getStatus() == 429 || res.getStatus() >= 500)) break;
        auto it = key_of_.find(std::string(records::View(res.getAction())));
        if (it == key_of_.end()) break;
        const std::string id = it->first, key = it->second;
        auto& of_key = writes_[key];
        auto answered = std::find_if(of_key.begin(), of_key.end(), [&](const auto& kv) {
          return ActionId(kv.first.first, kv.first.second) == id;
        });
        if (answered != of_key.end()) {
          for (auto i = of_key.begin(); i != std::next(answered); ++i) {
            key_of_.erase(ActionId(i->first.first, i->first.second));
          }
          of_key.erase(of_key.begin(), std::next(answered));
        }
        if (of_key.empty()) writes_.erase(key);
        break;
      }
      case schema::EventType::TIMER:
        timers_.erase(std::string(records::View(r.getTimer())));
        break;
      case schema::EventType::PROBE: {
        auto p = r.getProbe();
        probes_.erase({std::string(records::View(p.getName())), std::string(records::View(p.getTarget()))});
        break;
      }
      default:
        break;
    }
    ev.Next();
  }
  if (auto s = ev.status(); !s.ok()) return s;
  if (auto s = ac.status(); !s.ok()) return s;
  through_ = to;
  return absl::OkStatus();
}

Unanswered UnansweredScan::Result() const {
  Unanswered out;
  out.last_cause = last_cause_;
  // Per key only the latest counts: the earlier ones were superseded.
  for (const auto& [key, of_key] : writes_) {
    if (!of_key.empty()) out.writes.push_back(of_key.rbegin()->second);
  }
  std::sort(out.writes.begin(), out.writes.end(), [](const auto& a, const auto& b) {
    return std::make_pair(a.cause_seq, a.index) < std::make_pair(b.cause_seq, b.index);
  });
  for (const auto& [name, a] : timers_) out.rearm.push_back(a);
  for (const auto& [key, a] : probes_) out.rearm.push_back(a);
  return out;
}

std::string UnansweredScan::Encode() const {
  std::string out(kMagic);
  PutBig(&out, through_, 8);
  PutBig(&out, last_cause_, 8);
  auto put = [&](const records::ActionRecord& a) {
    std::string payload = records::EncodeActionPayload(a);
    PutBig(&out, payload.size(), 4);
    out += payload;
  };
  // Every open write is kept, superseded ones too: a later answer to the
  // newest settles the older ones, exactly as in a full read.
  for (const auto& [key, of_key] : writes_)
    for (const auto& [id, a] : of_key) put(a);
  for (const auto& [name, a] : timers_) put(a);
  for (const auto& [key, a] : probes_) put(a);
  return out;
}

absl::StatusOr<UnansweredScan> UnansweredScan::Decode(std::string_view data) {
  auto bad = [](std::string_view what) {
    return absl::DataLossError(recon::StrCat("unanswered-actions checkpoint: ", what));
  };
  if (data.substr(0, kMagic.size()) != kMagic) return bad("unknown format");
  data.remove_prefix(kMagic.size());
  UnansweredScan scan;
  if (!GetBig(&data, 8, &scan.through_) || !GetBig(&data, 8, &scan.last_cause_))
    return bad("truncated header");
  while (!data.empty()) {
    uint64_t n = 0;
    if (!GetBig(&data, 4, &n) || n > data.size()) return bad("truncated action");
    auto a = records::DecodeAction(data.substr(0, n));
    if (!a.ok()) return bad(Sv(a.status().message()));
    if (a->cause_seq > scan.through_) return bad("an action after the checkpoint's seq");
    data.remove_prefix(n);
    scan.OnAction(std::move(*a));
  }
  return scan;
}

absl::StatusOr<UnansweredScan> ScanUnanswered(store::EventStore& store, bool* from_checkpoint) {
  UnansweredScan scan;
  bool resumed = false;
  auto saved = store.GetAux(kUnansweredAux);
  if (saved.ok() && saved->has_value()) {
    auto decoded = UnansweredScan::Decode(**saved);
    // Usable when nothing it needs was compacted away and it is not from
    // a longer log than this one.
    if (decoded.ok() && decoded->through() + 1 >= store.FirstSeq() && decoded->through() <= store.LastSeq()) {
      scan = std::move(*decoded);
      resumed = true;
    }
  }
  if (from_checkpoint != nullptr) *from_checkpoint = resumed;
  if (auto s = scan.Advance(store, store::kEndOfLog); !s.ok()) return s;
  return scan;
}

absl::Status CheckpointUnanswered(store::EventStore& store) {
  auto scan = ScanUnanswered(store);
  if (!scan.ok()) return scan.status();
  return store.PutAux(kUnansweredAux, scan->Encode());
}

absl::StatusOr<Unanswered> FindUnanswered(store::EventStore& store) {
  UnansweredScan scan;
  if (auto s = scan.Advance(store, store::kEndOfLog); !s.ok()) return s;
  return scan.Result();
}

}  // namespace recon::runtime
