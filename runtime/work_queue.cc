#include "runtime/work_queue.h"

#include <algorithm>
#include <cmath>

#include "base/strings.h"
#include "engine/emit.h"

namespace recon::runtime {

using engine::ActionId;

WorkQueue::WorkQueue(const TimeSource& clock, BackoffPolicy policy)
    : clock_(clock), policy_(policy), tokens_(policy.burst), last_refill_ns_(clock.NowNs()) {}

int64_t WorkQueue::BackoffNs(int failures) const {
  if (failures <= 0) return 0;
  int64_t d = policy_.base_ns;
  for (int i = 1; i < failures && d < policy_.max_ns; ++i) d *= 2;
  return std::min(d, policy_.max_ns);
}

int WorkQueue::failures(const std::string& key) const {
  auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

void WorkQueue::Add(const std::string& key, records::ActionRecord action) {
  if (in_flight_.contains(key)) {
    waiting_[key] = std::move(action);  // dispatched after the current one finishes
    return;
  }
  auto it = items_.find(key);
  int64_t due = clock_.NowNs() + BackoffNs(failures(key));
  if (it != items_.end()) {
    it->second.action = std::move(action);  // keep its due time
    return;
  }
  items_.emplace(key, Item{std::move(action), due});
  by_due_.emplace(due, key);
}

std::optional<std::pair<std::string, records::ActionRecord>> WorkQueue::Pop() {
  int64_t now = clock_.NowNs();
  // Refill the token bucket (qps <= 0: no overall limit).
  const bool limited = policy_.qps > 0;
  if (limited) {
    tokens_ = std::min<double>(policy_.burst, tokens_ + (now - last_refill_ns_) * policy_.qps / 1e9);
    last_refill_ns_ = now;
    if (tokens_ < 1) return std::nullopt;
  }
  // Earliest due first; ties broken by key order.
  if (by_due_.empty() || by_due_.begin()->first > now) return std::nullopt;
  auto best = items_.find(by_due_.begin()->second);
  by_due_.erase(by_due_.begin());
  if (limited) tokens_ -= 1;
  auto out = std::make_pair(best->first, std::move(best->second.action));
  in_flight_.insert(best->first);
  items_.erase(best);
  return out;
}

void WorkQueue::Done(const std::string& key, bool ok, std::optional<records::ActionRecord> retry) {
  in_flight_.erase(key);
  if (ok) {
    failures_.erase(key);
  } else {
    ++failures_[key];
    ++retries_;
  }
  auto w = waiting_.find(key);
  if (w != waiting_.end()) {
    records::ActionRecord next = std::move(w->second);
    waiting_.erase(w);
    Add(key, std::move(next));
  } else if (!ok && retry) {
    Add(key, std::move(*retry));
  }
}

std::optional<int64_t> WorkQueue::NextDueNs() const {
  std::optional<int64_t> out;
  if (!by_due_.empty()) out = by_due_.begin()->first;
  if (out && policy_.qps > 0 && tokens_ < 1) {
    // Rounded up and at least 1 ns: truncated, a deficit of a few ulps gave
    // 0 ns, so the loop woke at the same instant, Pop refilled nothing and
    // the agent spun with its clock stuck (issue 18: "pending 102").
    int64_t refill = static_cast<int64_t>(std::ceil((1 - tokens_) * 1e9 / policy_.qps));
    out = std::max(*out, last_refill_ns_ + std::max<int64_t>(refill, 1));
  }
  return out;
}

std::string WorkKey(const records::ActionRecord& a) {
  if (a.verb == "setTimer") return recon::StrCat(a.domain, "|timer|", a.timer);
  if (a.verb == "probe") return recon::StrCat(a.domain, "|probe|", a.probe, "|", a.target);
  // Status writes and spec writes of one object are separate keys: the
  // status subresource does not conflict with a spec update.
  // An import is not a state to converge on but a request (one per tag
  // whose import failed): two imports of one image stream are two pieces of
  // work, never one replacing the other, or a tag's retry would be dropped
  // unanswered.
  if (a.verb == "importImage") {
    return recon::StrCat(a.domain, "|import|", a.object.group, "/", a.object.kind, "|", a.object.ns, "/",
                         a.object.name, "|", ActionId(a.cause_seq, a.index));
  }
  std::string cls = a.verb == "updateStatus" ? "status" : "object";
  return recon::StrCat(a.domain, "|", cls, "|", a.object.group, "/", a.object.kind, "|", a.object.ns, "/",
                       a.object.name);
}

}  // namespace recon::runtime
