// controller-runtime's requeue model as timer actions: RequeueAfter(d) on
// success (failure counter reset), exponential backoff on error.
#ifndef RECON_DOMAINS_ARO_REQUEUE_H_
#define RECON_DOMAINS_ARO_REQUEUE_H_

#include <cstdint>
#include <string>

#include "domains/aro/common.h"
#include "engine/emit.h"

namespace recon::aro {

class Requeue {
 public:
  explicit Requeue(std::string timer) : timer_(std::move(timer)) {}

  void After(engine::Emit& emit, int64_t now, int64_t delay) {
    failures_ = 0;
    Set(emit, now + delay);
  }
  void Backoff(engine::Emit& emit, int64_t now) { Set(emit, now + BackoffNs(failures_++)); }
  // Success with an empty result: nothing scheduled.
  void Forget() {
    failures_ = 0;
    due_ns_ = 0;
  }
  // An error whose retry is already due (the key was re-added meanwhile).
  void CountFailure() { ++failures_; }
  // A deadline for work in flight; keeps the failure counter.
  void Deadline(engine::Emit& emit, int64_t at) { Set(emit, at); }

  // A timer that fires before the latest requested time was superseded.
  bool IsStale(int64_t now) const { return due_ns_ != 0 && now < due_ns_; }
  int failures() const { return failures_; }
  int64_t due() const { return due_ns_; }  // 0: nothing scheduled
  const std::string& timer() const { return timer_; }

  Json ToJson() const { return {{"failures", failures_}, {"due", due_ns_}}; }
  void FromJson(const Json& j) {
    failures_ = j.is_object() && j.contains("failures") && j["failures"].is_number_integer()
                    ? j["failures"].get<int>()
                    : 0;
    due_ns_ =
        j.is_object() && j.contains("due") && j["due"].is_number_integer() ? j["due"].get<int64_t>() : 0;
  }

 private:
  void Set(engine::Emit& emit, int64_t at) {
    due_ns_ = at;
    emit.SetTimer(timer_, at);
  }
  std::string timer_;
  int failures_ = 0;
  int64_t due_ns_ = 0;
};

}  // namespace recon::aro

#endif  // RECON_DOMAINS_ARO_REQUEUE_H_
