// The dispatcher's queue: actions keyed by the object they touch, with
// per-key exponential backoff (5 ms doubling to 1000 s, reset on success,
// like controller-runtime's default rate limiter) and an overall token
// bucket. A key is queued at most once; a newer item replaces the waiting
// one (reducers are level-based, the latest desired state is what counts).
#ifndef RECON_RUNTIME_WORK_QUEUE_H_
#define RECON_RUNTIME_WORK_QUEUE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "records/record.h"
#include "runtime/time_source.h"

namespace recon::runtime {

struct BackoffPolicy {
  int64_t base_ns = 5'000'000;         // 5 ms
  int64_t max_ns = 1'000'000'000'000;  // 1000 s
  double qps = 10;                     // overall rate (token bucket); <= 0: none
  int burst = 100;
};

class WorkQueue {
 public:
  WorkQueue(const TimeSource& clock, BackoffPolicy policy = {});

  // Queues `action` under `key`, ready now (or when its key's backoff ends).
  void Add(const std::string& key, records::ActionRecord action);
  // The next item that is due and allowed by the rate limit, if any.
  std::optional<std::pair<std::string, records::ActionRecord>> Pop();
  // Outcome of a popped item: success resets the key's backoff; failure
  // re-queues it after the key's next backoff step.
  void Done(const std::string& key, bool ok, std::optional<records::ActionRecord> retry = std::nullopt);
  // When the next item becomes due (for the loop's timer); nullopt if empty.
  std::optional<int64_t> NextDueNs() const;

  size_t depth() const { return items_.size(); }
  uint64_t retries() const { return retries_; }
  int failures(const std::string& key) const;
  int64_t BackoffNs(int failures) const;

 private:
  struct Item {
    records::ActionRecord action;
    int64_t due_ns;
  };
  const TimeSource& clock_;
  BackoffPolicy policy_;
  std::map<std::string, Item> items_;
  // The same items by (due, key): Pop and NextDueNs look at the first one
  // instead of scanning a backlog (ties go to the smaller key).
  std::set<std::pair<int64_t, std::string>> by_due_;
  std::set<std::string> in_flight_;
  std::map<std::string, records::ActionRecord> waiting_;  // added while in flight
  std::map<std::string, int> failures_;
  double tokens_;
  int64_t last_refill_ns_;
  uint64_t retries_ = 0;
};

// The key an action is queued under: domain/verb-class/object identity.
std::string WorkKey(const records::ActionRecord& a);

}  // namespace recon::runtime

#endif  // RECON_RUNTIME_WORK_QUEUE_H_
