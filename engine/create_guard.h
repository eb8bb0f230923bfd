// The engine's guard against create loops (issue 18): a domain whose write
// is refused with a 4xx must not create a new object on every re-sync.
//
// It lives in the engine's action stream, not in the dispatcher: a held
// create is taken out of what Engine::Step emits, so it is never recorded,
// never dispatched, and a replay of the log (which recomputes the actions
// from the same events and compares them) holds exactly the same creates.
// Everything it decides on is in the log: ActionResult events (ok, HTTP
// status) and object events, at their event times. Its state goes into the
// engine's snapshot. The reducer is not told (it gets no ActionResult for a
// held create); reducers are level-based and emit the create again on a
// later sync, when the guard decides again.
//
// A `create` of domain D for kind K in namespace N is held while
//   1. a status write of D to an object in N was refused (4xx but 404, 408,
//      409, 429) and is unresolved: resolved by a later successful status
//      write to that object, or the object's Deleted event. Any kind in N:
//      the loop of issue 18 is a Subscription status refused while
//      InstallPlans are created next to it;
//   2. an earlier create of D for (K, N) was refused (4xx but 408, 409,
//      429): resolved by a create of (D, K, N) that succeeds, or an Added,
//      Modified or Deleted event of the refused object. Until then one
//      create is let through per backoff period (10 s doubling to 10 min,
//      from the refusal's time), so a fixed cause is found again;
//   3. an earlier create of D of the same object, emitted for an earlier
//      event, has no outcome yet: resolved by its ActionResult, or an event
//      of the object, or after 5 minutes without either (an answer that
//      never comes: the dispatcher replaced the action). Only the same
//      object: domains legitimately create several objects of one kind in
//      a namespace across events (samples' ConfigMaps at bootstrap), and a
//      create of another object that was never answered is no refusal.
#ifndef RECON_ENGINE_CREATE_GUARD_H_
#define RECON_ENGINE_CREATE_GUARD_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "engine/event.h"
#include "engine/json.h"
#include "records/record.h"

namespace recon::engine {

struct HeldCreate {
  std::string domain, group, kind, ns, name;
  std::string reason;  // plain words, for `recon explain`
};

class CreateGuard {
 public:
  static constexpr int64_t kOpenTimeoutNs = 300'000'000'000;  // 5 min
  static constexpr int64_t kRetryBaseNs = 10'000'000'000;     // 10 s
  static constexpr int64_t kRetryMaxNs = 600'000'000'000;     // 10 min

  // Before the reducers see `event`: outcomes and object events resolve.
  void Observe(const Event& event);
  // After one reducer emitted actions [from, end) of `actions` for `event`:
  // held creates are removed from `actions` and appended to `held`; the
  // creates and status writes let through are remembered until resolved.
  void Admit(const Event& event, std::vector<records::ActionRecord>& actions, size_t from,
             std::vector<HeldCreate>* held);

  Json ToJson() const;
  absl::Status FromJson(const Json& j);
  void Clear();

 private:
  struct Open {
    std::string domain, group, kind, ns, name;
    bool create = false;
    uint64_t cause = 0;
    int64_t at_ns = 0;
  };
  struct Refusal {
    std::string object;  // "Kind ns/name"
    std::string name;
    int code = 0;
    std::string message;
    int64_t since_ns = 0;
    int64_t retry_at_ns = 0;
    int strikes = 0;
  };
  void Forget(const std::string& id);
  void ResolveObject(const Event& event);
  std::string ReasonToHold(const Event& event, const records::ActionRecord& a);

  std::map<std::string, Open> open_;                        // action id → write awaiting its outcome
  std::set<std::pair<int64_t, std::string>> open_by_time_;  // (at, id), to expire the oldest
  // Creates awaiting an outcome, by object "group/kind|ns|name".
  std::map<std::string, std::set<std::string>> open_creates_by_object_;
  // Creates awaiting an outcome, by scope "domain|group/kind|ns".
  std::map<std::string, std::set<std::string>> open_creates_by_scope_;
  std::map<std::string, Refusal> create_refused_;  // by scope "domain|group/kind|ns"
  // Refused status writes by "domain|ns", then by object "group/kind|name".
  std::map<std::string, std::map<std::string, Refusal>> status_refused_;
};

}  // namespace recon::engine

#endif  // RECON_ENGINE_CREATE_GUARD_H_
