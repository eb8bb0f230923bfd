// The engine's one record of what the domains wrote and what became of it
// (issue 19): per object, the writes in flight and the resourceVersions our
// successful writes produced.
//
// An object event is *our echo* when its resourceVersion is one a write of
// ours produced (the ActionResult carries it); anything else is an
// observation from another writer — an admin, the real operator, a leader
// that lost its lease — and wins. Content is never compared: two writers may
// write the same bytes, and a stale echo of our own earlier write must not be
// taken for a newer state (the olm soak failures before this tracker).
//
// Everything it decides on is in the log (actions, ActionResult events,
// object events), so a replay tracks exactly the same; its state goes into
// the engine's snapshot. Reducers read it through World::writes(); only the
// engine changes it.
//
// A write's life, per object:
//   sent ──ok (rv R)──▶ answered ──event with rv R (or one produced later)──▶ gone
//     │                    └──another writer's event, or the object deleted──▶ gone
//     └──failed (409, 404, refused, Interrupted, ...)──▶ settled: gone, and
//        settled() names it for that ActionResult event
// A create answered 409 AlreadyExists is not a failure: the object exists
// and its event is late; it is pending until the object's next event.
// 429/5xx answers of a domain that does not re-decide failed writes leave
// the write in flight (the runtime sends it again, same action id). The
// runtime answers every write it dispatches (a stopped agent's are answered
// Interrupted on restart), except one a newer write to the same object
// replaced in its work queue: those are dropped when the newer one is
// answered. No write expires with time: a log without answers (a
// hand-written scenario) keeps its writes in flight until the object moves.
#ifndef RECON_ENGINE_WRITE_TRACKER_H_
#define RECON_ENGINE_WRITE_TRACKER_H_

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "engine/event.h"
#include "engine/json.h"
#include "records/record.h"

namespace recon::engine {

// Where the current object event came from.
enum class Origin : uint8_t {
  kNone,   // not an object event
  kOurs,   // the echo of a write of ours (its rv is one we produced)
  kOther,  // anything else: another writer, an initial list, a relist
};

struct TrackedWrite {
  std::string action;  // "<cause seq>.<index>"
  std::string domain, verb;
  std::string group, kind, ns, name;
  uint64_t seq = 0;  // the cause's seq
  int64_t at_ns = 0;
  std::string body;       // the object as sent; set once
  bool answered = false;  // ok: waiting for its echo
  uint64_t answered_seq = 0;
  std::string rv, uid;  // what the server returned for it ("" from logs before issue 19)
  // Set for the write an ActionResult settled (settled() only).
  bool ok = false;
  std::optional<int32_t> status;
  std::string error;
  // Set for an ok answer (answered() only): an event came while the write
  // was unanswered and it is not the state the write produced. Until this
  // answer it was held as a possible echo (see Pending); now it counts as
  // an observation the domain has not decided on yet.
  bool overtaken = false;
  // Answered 429/5xx and sent again by the runtime as it was (a domain that
  // does not re-decide failed writes): a newer write to the object replaces
  // the retry in the work queue, and then no answer ever comes for it.
  bool retrying = false;

  // The body parsed on first use and cached, as Object::json(): a domain
  // that builds on its own unanswered update reads it at every event until
  // the answer. Null if unparseable.
  const Json& json() const;

 private:
  mutable std::shared_ptr<const Json> json_;
};

class WriteTracker {
 public:
  // An object we wrote is remembered (its last event's origin) until it is
  // deleted. Produced resourceVersions kept per object: a watch that coalesced
  // (a relist) may never show some of them; an echo older than this many
  // writes of ours is taken for another writer's change.
  static constexpr size_t kMaxProduced = 64;
  // Live writes kept per object (in flight or awaiting their echo).
  static constexpr size_t kMaxPerObject = 8;

  // --- what reducers read ---

  // Of the event being reduced: whether its object's state is our echo.
  Origin origin() const { return origin_; }
  // For an ActionResult: the write it settled (failed and given up on),
  // with ok/status/error filled in; null when it settled nothing (a
  // success, a retried 429/5xx, an unknown action).
  const TrackedWrite* settled() const { return settled_ ? &*settled_ : nullptr; }
  // For an ActionResult: the write it answered (ok or not), or null.
  const TrackedWrite* answered() const { return answered_ ? &*answered_ : nullptr; }

  // The newest write of `domain` to the object that the world does not show
  // yet: in flight, or answered but its echo not seen, and no other writer's
  // change seen since it was sent. (In a log whose answers carry
  // resourceVersions, an event that comes while the write is unanswered may
  // be its echo: the write stays pending until its answer tells.) Null when
  // the world is current.
  const TrackedWrite* Pending(std::string_view domain, std::string_view group, std::string_view kind,
                              std::string_view ns, std::string_view name) const;
  // The last write of `domain` to the object the server refused (a 4xx
  // but 404, 408 and 429: the same request would be refused again — a 409
  // Conflict too, until the newer object is seen), until the object's next
  // event. A domain does not send the same write again meanwhile, so a
  // refusal never becomes a loop.
  const TrackedWrite* Refused(std::string_view domain, std::string_view group, std::string_view kind,
                              std::string_view ns, std::string_view name) const;
  // The domain's last write to the object, when the server refused it (as
  // Refused()) and the domain has not written the object since. Unlike
  // Refused(), it outlives the object's next event: whether the decision
  // still stands (write it again over the newer object, or wait for a
  // change) is the domain's call. Gone when the domain writes the object
  // again, or the object is deleted.
  const TrackedWrite* LastRefused(std::string_view domain, std::string_view group, std::string_view kind,
                                  std::string_view ns, std::string_view name) const;
  // Refusals in a row of the domain's last writes to the object (each the
  // newest when refused; 0 once one lands): a requeue backoff's exponent.
  int Refusals(std::string_view domain, std::string_view group, std::string_view kind, std::string_view ns,
               std::string_view name) const;
  // The domain's last status write (updateStatus) to the object that the
  // server took (answered ok), until the object is deleted. Its body is
  // the status the domain last made the object have: another writer's
  // change that leaves the status alone leaves the domain's later
  // decisions standing. (Status writes only: other bodies can be large,
  // and this is kept in every snapshot.)
  const TrackedWrite* LastLandedStatus(std::string_view domain, std::string_view group, std::string_view kind,
                                       std::string_view ns, std::string_view name) const;
  // Every unanswered write of `domain` to the object, oldest first.
  std::vector<const TrackedWrite*> InFlight(std::string_view domain, std::string_view group,
                                            std::string_view kind, std::string_view ns,
                                            std::string_view name) const;
  // Whether `rv` of the object was produced by a write of ours whose echo
  // has not been seen yet.
  bool Produced(std::string_view group, std::string_view kind, std::string_view ns, std::string_view name,
                std::string_view rv) const;
  // How the object's last event was classified (kNone: never seen, or
  // never written by us).
  Origin LastOrigin(std::string_view group, std::string_view kind, std::string_view ns,
                    std::string_view name) const;
  // Seq of the object's last event from another writer (0: none seen
  // since we first wrote it). A decision of ours taken after it stands.
  uint64_t LastOtherSeq(std::string_view group, std::string_view kind, std::string_view ns,
                        std::string_view name) const;
  // The newest resourceVersion a write of ours produced whose echo has not
  // been seen ("" when none): the precondition for our next write, so a
  // second write before the first one's echo does not conflict with it.
  std::string NewestProduced(std::string_view group, std::string_view kind, std::string_view ns,
                             std::string_view name) const;
  size_t in_flight_count() const { return by_action_.size(); }
  // Whether an answer of this log carried a resourceVersion (an agent's or
  // the simulated cluster's log). A log without them (a shadow agent's, a
  // hand-written scenario) never tells a refused write from one in flight.
  bool answers_carry_rv() const { return answers_carry_rv_; }

  // --- engine only ---

  // Before the reducers see `event`. `redecides(domain)` says whether the
  // domain re-decides failed writes (DomainDescriptor::redecides_failed_writes).
  template <typename Redecides>
  void Observe(const Event& event, Redecides&& redecides) {
    BeginEvent(event);
    if (event.type == records::EventType::kActionResult) {
      auto it = by_action_.find(std::string(event.action));
      if (it != by_action_.end()) OnResult(event, it->second, redecides(it->second.domain));
    } else if (event.IsObject()) {
      OnObject(event);
    }
  }
  // After a reducer emitted actions [from, end) for `event`.
  void Sent(const Event& event, const std::vector<records::ActionRecord>& actions, size_t from);

  Json ToJson() const;
  absl::Status FromJson(const Json& j);
  void Clear();

  // Verbs whose object is the one written (others — probes, timers,
  // importImage — are not tracked).
  static bool Tracked(std::string_view verb);

 private:
  struct PerObject {
    std::vector<std::string> writes;   // action ids of live writes, oldest first
    std::deque<std::string> produced;  // rvs our writes produced, echo not seen, oldest first
    std::string seen_rv;               // rv of the object's last event
    Origin last = Origin::kNone;       // and how it was classified
    uint64_t seen_seq = 0;             // its seq
    uint64_t other_seq = 0;            // seq of the last other writer's event
    // That event's rv, and other_seq before it: an answer carrying this rv
    // shows the event was our echo after all (it came before the answer).
    std::string other_rv;
    uint64_t prev_other_seq = 0;
    // (seq, rv) of the events taken for another writer's while a write of
    // ours was unanswered, oldest first: an answer naming one of them shows
    // that event was its echo, even when newer ones came after it.
    std::deque<std::pair<uint64_t, std::string>> held;
    std::map<std::string, TrackedWrite> refused;  // by domain, until the next event
    // By domain: LastRefused, Refusals, LastLandedStatus (until the object is deleted).
    struct Outcome {
      std::optional<TrackedWrite> refused, landed;
      int refusals = 0;
    };
    std::map<std::string, Outcome> outcomes;
    bool deleted = false;      // its last event was a Deleted
    uint64_t deleted_seq = 0;  // the seq of its last Deleted event
  };
  using Key = std::string;  // "group/kind|ns|name"
  static Key KeyOf(std::string_view group, std::string_view kind, std::string_view ns, std::string_view name);

  void BeginEvent(const Event& event);
  void OnResult(const Event& event, TrackedWrite& w, bool redecides);
  void OnObject(const Event& event);
  void Drop(const std::string& action);
  // Drops the unanswered writes of `answered`'s domain to its object sent
  // before it: the work queue replaced them, no answer comes.
  void DropReplaced(const TrackedWrite& answered);
  // Which write of an object over kMaxPerObject to forget (see Sent).
  std::string EvictionVictim(const PerObject& o, std::string_view domain) const;
  void Prune(const Key& key);
  const PerObject::Outcome* OutcomeOf(std::string_view domain, std::string_view group, std::string_view kind,
                                      std::string_view ns, std::string_view name) const;

  std::map<std::string, TrackedWrite> by_action_;  // live writes by action id
  std::map<Key, PerObject> objects_;
  Origin origin_ = Origin::kNone;
  // An ok answer carrying a resourceVersion has been seen: the log is one
  // where every answer tells what its write produced (see Pending).
  bool answers_carry_rv_ = false;
  std::optional<TrackedWrite> settled_, answered_;
};

}  // namespace recon::engine

#endif  // RECON_ENGINE_WRITE_TRACKER_H_
