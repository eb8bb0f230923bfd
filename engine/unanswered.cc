#include "engine/unanswered.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <string>
#include <utility>

#include "engine/emit.h"
#include "engine/work_queue.h"
#include "store/codec.h"

namespace recon::engine {
namespace {

bool IsWrite(const std::string& verb) { return verb != "setTimer" && verb != "probe"; }

}  // namespace

absl::StatusOr<Unanswered> FindUnanswered(store::EventStore& store) {
  uint64_t last = store.LastSeq();
  uint64_t first = store.FirstSeq();
  if (last == 0) return Unanswered{};
  auto events = store.ReadEvents(first, last);
  if (!events.ok()) return events.status();
  auto actions = store.ReadActions(first, last);
  if (!actions.ok()) return actions.status();
  // Unanswered writes by work key (engine/work_queue.h): the queue keeps
  // only the latest action per key, so an answer settles every earlier
  // action of its key too (those were superseded, never sent).
  std::map<std::string, std::map<std::pair<uint64_t, uint32_t>, store::ActionRecord>> writes;
  std::map<std::string, std::string> key_of;          // id → work key, while unanswered
  std::map<std::string, store::ActionRecord> timers;  // name → latest setTimer
  std::map<std::pair<std::string, std::string>, store::ActionRecord> probes;  // (probe, target)
  auto& ev = **events;
  auto& ac = **actions;
  uint64_t last_cause = 0;
  // An action caused by seq s is emitted after event s is reduced, so in
  // log order it sits between event s and event s+1.
  while (ev.Valid() || ac.Valid()) {
    if (ac.Valid() && (!ev.Valid() || ac.seq() < ev.seq())) {
      auto a = store::DecodeAction(ac.payload());
      if (!a.ok()) return a.status();
      last_cause = std::max(last_cause, a->cause_seq);
      if (a->verb == "setTimer") {
        timers[a->timer] = std::move(*a);
      } else if (a->verb == "probe") {
        probes[{a->probe, a->target}] = std::move(*a);
      } else {
        std::string key = WorkKey(*a);
        key_of[ActionId(a->cause_seq, a->index)] = key;
        writes[key].emplace(std::make_pair(a->cause_seq, a->index), std::move(*a));
      }
      ac.Next();
      continue;
    }
    auto view = store::EventView::Parse(ev.payload());
    if (!view.ok()) return view.status();
    auto r = view->reader();
    switch (r.getType()) {
      case schema::EventType::ACTION_RESULT: {
        auto it = key_of.find(std::string(store::View(r.getActionResult().getAction())));
        if (it == key_of.end()) break;
        const std::string id = it->first, key = it->second;
        auto& of_key = writes[key];
        auto answered = std::find_if(of_key.begin(), of_key.end(), [&](const auto& kv) {
          return ActionId(kv.first.first, kv.first.second) == id;
        });
        if (answered != of_key.end()) {
          for (auto i = of_key.begin(); i != std::next(answered); ++i) {
            key_of.erase(ActionId(i->first.first, i->first.second));
          }
          of_key.erase(of_key.begin(), std::next(answered));
        }
        if (of_key.empty()) writes.erase(key);
        break;
      }
      case schema::EventType::TIMER:
        timers.erase(std::string(store::View(r.getTimer())));
        break;
      case schema::EventType::PROBE: {
        auto p = r.getProbe();
        probes.erase({std::string(store::View(p.getName())), std::string(store::View(p.getTarget()))});
        break;
      }
      default:
        break;
    }
    ev.Next();
  }
  if (auto s = ev.status(); !s.ok()) return s;
  if (auto s = ac.status(); !s.ok()) return s;
  Unanswered out;
  out.last_cause = last_cause;
  // Per key only the latest counts: the earlier ones were superseded.
  for (auto& [key, of_key] : writes) {
    if (!of_key.empty()) out.writes.push_back(std::move(of_key.rbegin()->second));
  }
  std::sort(out.writes.begin(), out.writes.end(), [](const auto& a, const auto& b) {
    return std::make_pair(a.cause_seq, a.index) < std::make_pair(b.cause_seq, b.index);
  });
  for (auto& [name, a] : timers) out.rearm.push_back(std::move(a));
  for (auto& [key, a] : probes) out.rearm.push_back(std::move(a));
  return out;
}

}  // namespace recon::engine
