// Helpers for the write tracker's tests: a log of Subscription events
// whose strings outlive the views, and a status write recorded as sent.
#ifndef RECON_TESTS_ENGINE_WRITE_TRACKER_LOG_H_
#define RECON_TESTS_ENGINE_WRITE_TRACKER_LOG_H_

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "engine/emit.h"
#include "engine/engine.h"
#include "engine/world.h"
#include "engine/write_tracker.h"

namespace recon::engine::testing {

constexpr int64_t kT0 = 1'800'000'000'000'000'000;
constexpr int64_t kSec = 1'000'000'000;

// Events are views: their strings live here as long as the test.
class Log {
 public:
  Event Object(records::EventType type, std::string rv, uint64_t seq, int64_t t = kT0) {
    Event e;
    e.seq = seq;
    e.time_ns = t;
    e.type = type;
    e.group = "operators.coreos.com";
    e.version = "v1alpha1";
    e.kind = "Subscription";
    e.ns = "ops";
    e.name = "etcd";
    e.resource_version = Keep(std::move(rv));
    return e;
  }
  Event Result(std::string action, uint64_t seq, bool ok, std::optional<int32_t> status, std::string rv = "",
               int64_t t = kT0) {
    Event e;
    e.seq = seq;
    e.time_ns = t;
    e.type = records::EventType::kActionResult;
    e.action = Keep(std::move(action));
    e.ok = ok;
    e.status = status;
    e.resource_version = Keep(std::move(rv));
    if (!ok) e.error = "Conflict: the object has been modified";
    return e;
  }
  Event Timer(uint64_t seq, int64_t t) {
    Event e;
    e.seq = seq;
    e.time_ns = t;
    e.type = records::EventType::kTimer;
    e.timer = "olm/test";
    return e;
  }

 private:
  std::string_view Keep(std::string s) { return strings_.emplace_back(std::move(s)); }
  std::deque<std::string> strings_;
};

// A status write of `domain` emitted for `cause` (index 0), recorded as sent.
inline std::string Send(WriteTracker& t, const Event& cause, std::string domain = "olm",
                        std::string verb = "updateStatus") {
  records::ActionRecord a;
  a.cause_seq = cause.seq;
  a.index = 0;
  a.domain = std::move(domain);
  a.verb = std::move(verb);
  a.object.group = "operators.coreos.com";
  a.object.version = "v1alpha1";
  a.object.kind = "Subscription";
  a.object.ns = "ops";
  a.object.name = "etcd";
  a.body = R"({"status":{"state":"UpgradePending"}})";
  std::vector<records::ActionRecord> out{a};
  t.Sent(cause, out, 0);
  return ActionId(cause.seq, 0);
}

inline auto Never = [](std::string_view) { return false; };

// Seq 1, a timer at kT0, and the write `domain` emitted for it.
inline std::string SendAtSeq1(WriteTracker& t, Log& log, std::string verb = "updateStatus") {
  Event cause = log.Timer(1, kT0);
  t.Observe(cause, Never);
  return Send(t, cause, "olm", std::move(verb));
}
inline auto Always = [](std::string_view) { return true; };

inline const TrackedWrite* PendingSub(const WriteTracker& t, std::string_view domain = "olm") {
  return t.Pending(domain, "operators.coreos.com", "Subscription", "ops", "etcd");
}

}  // namespace recon::engine::testing

#endif  // RECON_TESTS_ENGINE_WRITE_TRACKER_LOG_H_
