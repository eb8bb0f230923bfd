#include "runtime/timer_table.h"

namespace recon::runtime {

void TimerTable::Set(std::string_view name, int64_t at_ns) {
  if (auto it = by_name_.find(name); it != by_name_.end()) {
    due_.erase(it->second);
    by_name_.erase(it);
  }
  Key key{at_ns, order_++};
  due_.emplace(key, std::string(name));
  by_name_.emplace(std::string(name), key);
}

std::optional<int64_t> TimerTable::NextDueNs() const {
  if (due_.empty()) return std::nullopt;
  return due_.begin()->first.first;
}

std::vector<records::EventRecord> TimerTable::TakeDue(int64_t now_ns) {
  std::vector<records::EventRecord> out;
  while (!due_.empty() && due_.begin()->first.first <= now_ns) {
    records::EventRecord e;
    e.time_ns = now_ns;
    e.type = records::EventType::kTimer;
    e.timer = std::move(due_.begin()->second);
    by_name_.erase(e.timer);
    due_.erase(due_.begin());
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace recon::runtime
