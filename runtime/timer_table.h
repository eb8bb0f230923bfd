// The agent's timers (a domain's `setTimer` actions), owned by the runtime
// for every cluster adapter: a live cluster and the simulated one fire them
// the same way, on the runtime's clock. A timer set again under its name
// replaces the pending one (a controller's requeue); one that fires is
// delivered as a Timer event stamped with the time it fired.
#ifndef RECON_RUNTIME_TIMER_TABLE_H_
#define RECON_RUNTIME_TIMER_TABLE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "records/record.h"

namespace recon::runtime {

class TimerTable {
 public:
  // Arms `name` at `at_ns`, replacing a pending timer of that name.
  void Set(std::string_view name, int64_t at_ns);
  // When the next timer is due; nullopt when none is pending.
  std::optional<int64_t> NextDueNs() const;
  // The timers due by `now_ns` as Timer events (time `now_ns`), removed;
  // ordered by due time, then by the order they were set in.
  std::vector<records::EventRecord> TakeDue(int64_t now_ns);
  size_t size() const { return by_name_.size(); }

 private:
  using Key = std::pair<int64_t, uint64_t>;  // (due, set order)
  std::map<Key, std::string> due_;
  std::map<std::string, Key, std::less<>> by_name_;
  uint64_t order_ = 0;
};

}  // namespace recon::runtime

#endif  // RECON_RUNTIME_TIMER_TABLE_H_
