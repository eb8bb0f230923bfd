// The engine's write tracker (engine/write_tracker.h): our echoes are told
// from other writers' changes by resourceVersion alone, stale echoes of
// earlier writes never hide a newer write, failures settle, and the state
// survives a snapshot.
#include "engine/write_tracker.h"

#include <algorithm>
#include <deque>
#include <string>

#include "engine/emit.h"
#include "engine/engine.h"
#include "engine/world.h"
#include "gtest/gtest.h"

namespace recon::engine {
namespace {

constexpr int64_t kT0 = 1'800'000'000'000'000'000;
constexpr int64_t kSec = 1'000'000'000;

// Events are views: their strings live here as long as the test.
class Log {
 public:
  Event Object(EventType type, std::string rv, uint64_t seq, int64_t t = kT0) {
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
    e.type = EventType::kActionResult;
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
    e.type = EventType::kTimer;
    e.timer = "olm/test";
    return e;
  }

 private:
  std::string_view Keep(std::string s) { return strings_.emplace_back(std::move(s)); }
  std::deque<std::string> strings_;
};

// A status write of `domain` emitted for `cause` (index 0), recorded as sent.
std::string Send(WriteTracker& t, const Event& cause, std::string domain = "olm",
                 std::string verb = "updateStatus") {
  engine::ActionRecord a;
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
  std::vector<engine::ActionRecord> out{a};
  t.Sent(cause, out, 0);
  return ActionId(cause.seq, 0);
}

auto Never = [](std::string_view) { return false; };

// Seq 1, a timer at kT0, and the write `domain` emitted for it.
std::string SendAtSeq1(WriteTracker& t, Log& log, std::string verb = "updateStatus") {
  Event cause = log.Timer(1, kT0);
  t.Observe(cause, Never);
  return Send(t, cause, "olm", std::move(verb));
}
auto Always = [](std::string_view) { return true; };

const TrackedWrite* PendingSub(const WriteTracker& t, std::string_view domain = "olm") {
  return t.Pending(domain, "operators.coreos.com", "Subscription", "ops", "etcd");
}

TEST(WriteTracker, AnEventCarryingTheResourceVersionOurWriteProducedIsOurEcho) {
  WriteTracker t;
  Log log;
  std::string id = SendAtSeq1(t, log);
  ASSERT_NE(PendingSub(t), nullptr);
  EXPECT_EQ(PendingSub(t)->action, id);
  EXPECT_EQ(PendingSub(t, "samples"), nullptr) << "another domain's view";

  t.Observe(log.Result(id, 2, true, 200, "5"), Never);
  ASSERT_NE(t.answered(), nullptr);
  EXPECT_EQ(t.settled(), nullptr);
  ASSERT_NE(PendingSub(t), nullptr) << "answered, echo not seen yet";
  EXPECT_TRUE(t.Produced("operators.coreos.com", "Subscription", "ops", "etcd", "5"));

  t.Observe(log.Object(EventType::kModified, "5", 3), Never);
  EXPECT_EQ(t.origin(), Origin::kOurs);
  EXPECT_EQ(PendingSub(t), nullptr);
  EXPECT_EQ(t.in_flight_count(), 0u);
}

// The olm soak failure: after several writes of ours, the late echo of an
// earlier one must not be taken for a newer state, however many writes
// came in between (a content-hash history forgot them after 16).
TEST(WriteTracker, AStaleEchoOfAnEarlierWriteLeavesTheNewerWritePending) {
  WriteTracker t;
  Log log;
  uint64_t seq = 1;
  std::vector<std::string> ids;
  for (int i = 0; i < 20; ++i) {
    Event cause = log.Timer(seq++, kT0 + i * kSec);
    t.Observe(cause, Never);
    ids.push_back(Send(t, cause));
    t.Observe(log.Result(ids.back(), seq++, true, 200, std::to_string(100 + i)), Never);
  }
  t.Observe(log.Object(EventType::kModified, "103", seq++), Never);
  EXPECT_EQ(t.origin(), Origin::kOurs);
  ASSERT_NE(PendingSub(t), nullptr);
  EXPECT_EQ(PendingSub(t)->action, ids.back()) << "the newest write still holds";
  t.Observe(log.Object(EventType::kModified, "119", seq++), Never);
  EXPECT_EQ(t.origin(), Origin::kOurs);
  EXPECT_EQ(PendingSub(t), nullptr);
}

TEST(WriteTracker, AnotherWritersChangeWinsOverOurUnansweredWriteUntilItsAnswer) {
  WriteTracker t;
  Log log;
  std::string id = SendAtSeq1(t, log);
  t.Observe(log.Object(EventType::kModified, "7", 2), Never);
  EXPECT_EQ(t.origin(), Origin::kOther);
  EXPECT_EQ(PendingSub(t), nullptr) << "the other writer's state wins";
  EXPECT_EQ(t.InFlight("olm", "operators.coreos.com", "Subscription", "ops", "etcd").size(), 1u);
  // Our write landed after it (rv 8): ours is the newer state again.
  t.Observe(log.Result(id, 3, true, 200, "8"), Never);
  ASSERT_NE(PendingSub(t), nullptr);
  t.Observe(log.Object(EventType::kModified, "8", 4), Never);
  EXPECT_EQ(t.origin(), Origin::kOurs);
}

TEST(WriteTracker, AnAnsweredWriteIsOverriddenByALaterChangeOfAnotherWriter) {
  WriteTracker t;
  Log log;
  std::string id = SendAtSeq1(t, log);
  t.Observe(log.Result(id, 2, true, 200, "8"), Never);
  t.Observe(log.Object(EventType::kModified, "9", 3), Never);
  EXPECT_EQ(t.origin(), Origin::kOther);
  EXPECT_EQ(PendingSub(t), nullptr);
  // Its echo still arrives late (a watch that was behind): still ours.
  t.Observe(log.Object(EventType::kModified, "8", 4), Never);
  EXPECT_EQ(t.origin(), Origin::kOurs);
}

TEST(WriteTracker, AnEchoSeenBeforeItsAnswerIsOursOnceTheAnswerComes) {
  WriteTracker t;
  Log log;
  std::string id = SendAtSeq1(t, log);
  t.Observe(log.Object(EventType::kModified, "12", 2), Never);
  EXPECT_EQ(t.origin(), Origin::kOther) << "not known yet";
  t.Observe(log.Result(id, 3, true, 200, "12"), Never);
  EXPECT_EQ(PendingSub(t), nullptr) << "the world already shows it";
  EXPECT_EQ(t.LastOrigin("operators.coreos.com", "Subscription", "ops", "etcd"), Origin::kOurs)
      << "the event was our echo after all";
  EXPECT_EQ(t.LastOtherSeq("operators.coreos.com", "Subscription", "ops", "etcd"), 0u);
  EXPECT_EQ(t.in_flight_count(), 0u);
}

TEST(WriteTracker, AConflictSettlesTheWriteAndNamesIt) {
  WriteTracker t;
  Log log;
  std::string id = SendAtSeq1(t, log);
  t.Observe(log.Result(id, 2, false, 409), Never);
  ASSERT_NE(t.settled(), nullptr);
  EXPECT_EQ(t.settled()->action, id);
  EXPECT_EQ(t.settled()->verb, "updateStatus");
  EXPECT_EQ(t.settled()->status, 409);
  EXPECT_EQ(PendingSub(t), nullptr);
  EXPECT_EQ(t.in_flight_count(), 0u);
  t.Observe(log.Timer(3, kT0), Never);
  EXPECT_EQ(t.settled(), nullptr) << "only for the ActionResult event itself";
}

TEST(WriteTracker, ARefusalIsHeldUntilTheObjectsNextEvent) {
  WriteTracker t;
  Log log;
  std::string id = SendAtSeq1(t, log);
  t.Observe(log.Result(id, 2, false, 422), Never);
  ASSERT_NE(t.Refused("olm", "operators.coreos.com", "Subscription", "ops", "etcd"), nullptr);
  t.Observe(log.Object(EventType::kModified, "31", 3), Never);
  EXPECT_EQ(t.Refused("olm", "operators.coreos.com", "Subscription", "ops", "etcd"), nullptr);
}

TEST(WriteTracker, AConflictWhoseNewerObjectCameFirstIsNotHeld) {
  WriteTracker t;
  Log log;
  std::string id = SendAtSeq1(t, log);
  // Another writer's change lands while our write is on its way; our write
  // then conflicts with it. The world already shows the newer object.
  t.Observe(log.Object(EventType::kModified, "31", 2), Never);
  t.Observe(log.Result(id, 3, false, 409), Never);
  ASSERT_NE(t.settled(), nullptr);
  EXPECT_EQ(t.Refused("olm", "operators.coreos.com", "Subscription", "ops", "etcd"), nullptr);
}

constexpr char kG[] = "operators.coreos.com";

TEST(WriteTracker, ARefusedLastWriteOutlivesTheNextEventUntilTheDomainWritesAgain) {
  WriteTracker t;
  Log log;
  std::string id = SendAtSeq1(t, log);
  t.Observe(log.Result(id, 2, false, 409), Never);
  ASSERT_NE(t.LastRefused("olm", kG, "Subscription", "ops", "etcd"), nullptr);
  EXPECT_EQ(t.LastRefused("olm", kG, "Subscription", "ops", "etcd")->status, 409);
  EXPECT_EQ(t.LastRefused("samples", kG, "Subscription", "ops", "etcd"), nullptr) << "per domain";
  EXPECT_EQ(t.Refusals("olm", kG, "Subscription", "ops", "etcd"), 1);
  // The newer object: Refused() lets go, LastRefused() stays (the domain decides).
  t.Observe(log.Object(EventType::kModified, "31", 3), Never);
  EXPECT_EQ(t.Refused("olm", kG, "Subscription", "ops", "etcd"), nullptr);
  ASSERT_NE(t.LastRefused("olm", kG, "Subscription", "ops", "etcd"), nullptr);
  // Written again: no longer held; refused again: two in a row.
  Event cause = log.Timer(4, kT0);
  t.Observe(cause, Never);
  std::string again = Send(t, cause);
  EXPECT_EQ(t.LastRefused("olm", kG, "Subscription", "ops", "etcd"), nullptr);
  t.Observe(log.Result(again, 5, false, 409), Never);
  EXPECT_EQ(t.Refusals("olm", kG, "Subscription", "ops", "etcd"), 2);
  // A write that lands resets the count and is the status that landed.
  cause = log.Timer(6, kT0);
  t.Observe(cause, Never);
  std::string third = Send(t, cause);
  t.Observe(log.Result(third, 7, true, 200, "32"), Never);
  EXPECT_EQ(t.Refusals("olm", kG, "Subscription", "ops", "etcd"), 0);
  EXPECT_EQ(t.LastRefused("olm", kG, "Subscription", "ops", "etcd"), nullptr);
  ASSERT_NE(t.LastLandedStatus("olm", kG, "Subscription", "ops", "etcd"), nullptr);
  EXPECT_EQ(t.LastLandedStatus("olm", kG, "Subscription", "ops", "etcd")->action, third);
  // Both survive a snapshot; a delete forgets them.
  WriteTracker back;
  ASSERT_TRUE(back.FromJson(t.ToJson()).ok());
  EXPECT_EQ(Dump(back.ToJson()), Dump(t.ToJson()));
  ASSERT_NE(back.LastLandedStatus("olm", kG, "Subscription", "ops", "etcd"), nullptr);
  t.Observe(log.Object(EventType::kDeleted, "33", 8), Never);
  EXPECT_EQ(t.LastLandedStatus("olm", kG, "Subscription", "ops", "etcd"), nullptr);
}

TEST(WriteTracker, ARefusalOfAWriteANewerOneReplacedIsNotTheDomainsLastWord) {
  WriteTracker t;
  Log log;
  std::string first = SendAtSeq1(t, log);
  Event cause = log.Timer(2, kT0);
  t.Observe(cause, Never);
  Send(t, cause);  // newer, still in flight
  t.Observe(log.Result(first, 3, false, 409), Never);
  EXPECT_EQ(t.LastRefused("olm", kG, "Subscription", "ops", "etcd"), nullptr);
  EXPECT_EQ(t.Refusals("olm", kG, "Subscription", "ops", "etcd"), 0);
}

TEST(WriteTracker, AnObjectWriteAnsweredDoesNotDropAStatusWriteSentBeforeIt) {
  // The work queue keys status and object writes apart: the status write
  // was not replaced, its answer still comes (four-domain soak, seed 5).
  WriteTracker t;
  Log log;
  std::string status = SendAtSeq1(t, log, "updateStatus");
  Event cause = log.Timer(2, kT0);
  t.Observe(cause, Never);
  std::string update = Send(t, cause, "olm", "update");
  t.Observe(log.Result(update, 3, true, 200, "40"), Never);
  ASSERT_EQ(t.InFlight("olm", kG, "Subscription", "ops", "etcd").size(), 1u);
  EXPECT_EQ(t.InFlight("olm", kG, "Subscription", "ops", "etcd").front()->action, status);
  t.Observe(log.Result(status, 4, false, 409), Never);
  ASSERT_NE(t.settled(), nullptr);
  EXPECT_EQ(t.settled()->action, status);
}

TEST(WriteTracker, NotFoundAndThrottlingAreNoRefusal) {
  WriteTracker t;
  Log log;
  std::string id = SendAtSeq1(t, log);
  t.Observe(log.Result(id, 2, false, 404), Never);
  EXPECT_EQ(t.LastRefused("olm", kG, "Subscription", "ops", "etcd"), nullptr);
  Event cause = log.Timer(3, kT0);
  t.Observe(cause, Never);
  std::string again = Send(t, cause);
  t.Observe(log.Result(again, 4, false, 429), Always);
  EXPECT_EQ(t.LastRefused("olm", kG, "Subscription", "ops", "etcd"), nullptr);
}

TEST(WriteTracker, ThrottlingKeepsTheWriteInFlightUnlessTheDomainRedecides) {
  for (bool redecides : {false, true}) {
    WriteTracker t;
    Log log;
    std::string id = SendAtSeq1(t, log);
    Event r = log.Result(id, 2, false, 429);
    if (redecides) {
      t.Observe(r, Always);
    } else {
      t.Observe(r, Never);
    }
    EXPECT_EQ(t.settled() != nullptr, redecides);
    EXPECT_EQ(t.in_flight_count(), redecides ? 0u : 1u);
  }
}

TEST(WriteTracker, OurDeleteIsEchoedByTheDeletedEvent) {
  WriteTracker t;
  Log log;
  std::string id = SendAtSeq1(t, log, "delete");
  t.Observe(log.Result(id, 2, true, 200), Never);
  ASSERT_NE(PendingSub(t), nullptr);
  t.Observe(log.Object(EventType::kDeleted, "20", 3), Never);
  EXPECT_EQ(t.origin(), Origin::kOurs);
  EXPECT_EQ(PendingSub(t), nullptr);
  EXPECT_EQ(t.in_flight_count(), 0u);
}

// A real server answers a DELETE with the object as it was, whose
// resourceVersion the world already shows: the delete still waits for the
// Deleted event (the 1 M-event soak sent 57 of its 91 plan deletes twice).
TEST(WriteTracker, ADeleteAnsweredWithTheObjectsVersionWaitsForTheDeletedEvent) {
  WriteTracker t;
  Log log;
  t.Observe(log.Object(EventType::kAdded, "10", 1), Never);
  Event cause = log.Timer(2, kT0);
  t.Observe(cause, Never);
  std::string id = Send(t, cause, "olm", "delete");
  t.Observe(log.Result(id, 3, true, 200, "10"), Never);
  ASSERT_NE(PendingSub(t), nullptr);
  EXPECT_EQ(PendingSub(t)->verb, "delete");
  t.Observe(log.Timer(4, kT0 + kSec), Never);
  ASSERT_NE(PendingSub(t), nullptr);
  t.Observe(log.Object(EventType::kDeleted, "11", 5), Never);
  EXPECT_EQ(t.origin(), Origin::kOurs);
  EXPECT_EQ(PendingSub(t), nullptr);
}

TEST(WriteTracker, AnAnswerWithoutResourceVersionFromAnOldLogIsEchoedByTheNextEvent) {
  WriteTracker t;
  Log log;
  std::string id = SendAtSeq1(t, log);
  t.Observe(log.Result(id, 2, true, 200), Never);
  ASSERT_NE(PendingSub(t), nullptr);
  t.Observe(log.Object(EventType::kModified, "30", 3), Never);
  EXPECT_EQ(t.origin(), Origin::kOurs);
  EXPECT_EQ(PendingSub(t), nullptr);
}

TEST(WriteTracker, AWriteNeverAnsweredStaysInFlightUntilANewerWriteIsAnswered) {
  WriteTracker t;
  Log log;
  std::string first = SendAtSeq1(t, log);
  // No time limit: an hour later the unanswered write still holds.
  t.Observe(log.Timer(2, kT0 + 3600 * kSec), Never);
  ASSERT_NE(PendingSub(t), nullptr);
  EXPECT_EQ(PendingSub(t)->action, first);
  // A newer write replaced it in the work queue; its answer drops the first.
  Event cause = log.Timer(3, kT0 + 3601 * kSec);
  t.Observe(cause, Never);
  std::string second = Send(t, cause);
  EXPECT_EQ(t.in_flight_count(), 2u);
  t.Observe(log.Result(second, 4, true, 200, "40"), Never);
  EXPECT_EQ(t.in_flight_count(), 1u);
  ASSERT_NE(PendingSub(t), nullptr);
  EXPECT_EQ(PendingSub(t)->action, second);
}

TEST(WriteTracker, SnapshotRoundTripKeepsEveryWriteAndEcho) {
  WriteTracker t;
  Log log;
  Event c1 = log.Timer(1, kT0);
  t.Observe(c1, Never);
  std::string a = Send(t, c1);
  t.Observe(log.Result(a, 2, true, 200, "40"), Never);
  Event c3 = log.Timer(3, kT0);
  t.Observe(c3, Never);
  Send(t, c3);
  t.Observe(log.Object(EventType::kModified, "39", 4), Never);

  WriteTracker back;
  ASSERT_TRUE(back.FromJson(t.ToJson()).ok());
  EXPECT_EQ(Dump(back.ToJson()), Dump(t.ToJson()));
  EXPECT_TRUE(back.Produced("operators.coreos.com", "Subscription", "ops", "etcd", "40"));
  back.Observe(log.Object(EventType::kModified, "40", 5), Never);
  EXPECT_EQ(back.origin(), Origin::kOurs);

  EXPECT_FALSE(back.FromJson(Json{{"writes", 3}}).ok());
  EXPECT_FALSE(
      back.FromJson(Json{{"writes", Json::array()}, {"objects", Json{{"k", Json{{"writes", {"9.9"}}}}}}})
          .ok())
      << "an object naming a write the snapshot does not hold";
}

TEST(WriteTracker, TheNextWriteIsPreconditionedOnTheNewestVersionWeProduced) {
  WriteTracker t;
  Log log;
  std::string id = SendAtSeq1(t, log);
  EXPECT_EQ(t.NewestProduced("operators.coreos.com", "Subscription", "ops", "etcd"), "");
  t.Observe(log.Result(id, 2, true, 200, "50"), Never);
  EXPECT_EQ(t.NewestProduced("operators.coreos.com", "Subscription", "ops", "etcd"), "50");
  t.Observe(log.Object(EventType::kModified, "50", 3), Never);
  EXPECT_EQ(t.NewestProduced("operators.coreos.com", "Subscription", "ops", "etcd"), "");
  // Another writer after our echo: its seq stays known once our writes settled.
  t.Observe(log.Object(EventType::kModified, "51", 4), Never);
  EXPECT_EQ(t.LastOrigin("operators.coreos.com", "Subscription", "ops", "etcd"), Origin::kOther);
  EXPECT_EQ(t.LastOtherSeq("operators.coreos.com", "Subscription", "ops", "etcd"), 4u);
  t.Observe(log.Object(EventType::kDeleted, "52", 5), Never);
  EXPECT_EQ(t.LastOrigin("operators.coreos.com", "Subscription", "ops", "etcd"), Origin::kNone)
      << "forgotten with the object";
}

TEST(WriteTracker, AnAnswerAfterTheObjectMovedOnIsNoPrecondition) {
  // The olm soak's fault-free run: a status write to a subscription is
  // answered only after the subscription was deleted and created again
  // (rv 315) and written by us again (its echo, rv 354, before its answer).
  WriteTracker t;
  Log log;
  std::string old = SendAtSeq1(t, log);
  t.Observe(log.Object(EventType::kDeleted, "312", 2), Never);
  t.Observe(log.Object(EventType::kAdded, "315", 3), Never);
  Event cause = log.Timer(4, kT0);
  t.Observe(cause, Never);
  std::string again = Send(t, cause);
  t.Observe(log.Object(EventType::kModified, "354", 5), Never);
  t.Observe(log.Result(old, 6, true, 200, "309"), Never);
  t.Observe(log.Result(again, 7, true, 200, "354"), Never);
  EXPECT_EQ(t.LastOrigin("operators.coreos.com", "Subscription", "ops", "etcd"), Origin::kOurs);
  EXPECT_EQ(t.NewestProduced("operators.coreos.com", "Subscription", "ops", "etcd"), "")
      << "309 is older than the 354 seen: a write over it would only conflict";
}

TEST(WriteTracker, AnEchoBeforeItsAnswerDoesNotOverrideTheWriteWhenAnswersCarryVersions) {
  // The olm soak: a status write's watch event came before its HTTP answer
  // and was taken for another writer's change; the reducer re-resolved from
  // it and planned the step a second time.
  WriteTracker t;
  Log log;
  std::string first = SendAtSeq1(t, log);
  t.Observe(log.Result(first, 2, true, 200, "10"), Never);  // answers carry versions
  t.Observe(log.Object(EventType::kModified, "10", 3), Never);
  Event cause = log.Timer(4, kT0);
  t.Observe(cause, Never);
  std::string second = Send(t, cause);
  t.Observe(log.Object(EventType::kModified, "11", 5), Never);  // its echo, before its answer
  ASSERT_NE(PendingSub(t), nullptr) << "undecided until the answer";
  EXPECT_EQ(PendingSub(t)->action, second);
  t.Observe(log.Result(second, 6, true, 200, "11"), Never);
  EXPECT_EQ(t.LastOrigin("operators.coreos.com", "Subscription", "ops", "etcd"), Origin::kOurs);
  EXPECT_EQ(PendingSub(t), nullptr);
  // Another writer's change while the next write is unanswered: the write
  // holds until its 409, then the change wins.
  cause = log.Timer(7, kT0);
  t.Observe(cause, Never);
  std::string third = Send(t, cause);
  t.Observe(log.Object(EventType::kModified, "12", 8), Never);
  ASSERT_NE(PendingSub(t), nullptr);
  t.Observe(log.Result(third, 9, false, 409), Never);
  EXPECT_EQ(PendingSub(t), nullptr);
  EXPECT_EQ(t.LastOrigin("operators.coreos.com", "Subscription", "ops", "etcd"), Origin::kOther);
}

TEST(WriteTracker, AnEchoThenAnotherWritersChangeBothBeforeTheAnswerLeaveTheWorldCurrent) {
  // The olm soak, seed 7: our InstallPlan status write's echo (rv 11) and
  // the executor's Complete (rv 12) both came before our answer. The answer
  // names the echo: the write is done, the world (Complete) is current, and
  // the answer says the object moved past the write, so the domain decides
  // again on what it held.
  WriteTracker t;
  Log log;
  std::string first = SendAtSeq1(t, log);
  t.Observe(log.Result(first, 2, true, 200, "10"), Never);  // answers carry versions
  t.Observe(log.Object(EventType::kModified, "10", 3), Never);
  Event cause = log.Timer(4, kT0);
  t.Observe(cause, Never);
  std::string second = Send(t, cause);
  t.Observe(log.Object(EventType::kModified, "11", 5), Never);  // its echo
  t.Observe(log.Object(EventType::kModified, "12", 6), Never);  // another writer's
  ASSERT_NE(PendingSub(t), nullptr) << "undecided until the answer";
  t.Observe(log.Result(second, 7, true, 200, "11"), Never);
  ASSERT_NE(t.answered(), nullptr);
  EXPECT_TRUE(t.answered()->overtaken);
  EXPECT_EQ(PendingSub(t), nullptr) << "the echo was seen; rv 12 is newer";
  EXPECT_EQ(t.NewestProduced("operators.coreos.com", "Subscription", "ops", "etcd"), "");
  EXPECT_EQ(t.LastOrigin("operators.coreos.com", "Subscription", "ops", "etcd"), Origin::kOther);
  EXPECT_EQ(t.LastOtherSeq("operators.coreos.com", "Subscription", "ops", "etcd"), 6u);
}

TEST(WriteTracker, AnAnswerWhoseEchoIsTheLatestEventIsNotOvertaken) {
  WriteTracker t;
  Log log;
  std::string first = SendAtSeq1(t, log);
  t.Observe(log.Result(first, 2, true, 200, "10"), Never);
  Event cause = log.Timer(3, kT0);
  t.Observe(cause, Never);
  std::string second = Send(t, cause);
  t.Observe(log.Object(EventType::kModified, "11", 4), Never);
  t.Observe(log.Result(second, 5, true, 200, "11"), Never);
  ASSERT_NE(t.answered(), nullptr);
  EXPECT_FALSE(t.answered()->overtaken);
  EXPECT_EQ(PendingSub(t), nullptr);
}

TEST(WriteTracker, ManyWritesReplacedInTheQueueNeverForgetTheOneInFlight) {
  // The olm soak, seed 10: a dozen status writes decided while the first
  // was on its way (the work queue replaced all but the newest). The first
  // one's answer must still name its echo, seen before it; forgetting it
  // left the echo taken for another writer's change and an old status
  // written back.
  WriteTracker t;
  Log log;
  std::string first = SendAtSeq1(t, log);
  t.Observe(log.Result(first, 2, true, 200, "10"), Never);  // answers carry versions
  t.Observe(log.Object(EventType::kModified, "10", 3), Never);
  Event cause = log.Timer(4, kT0);
  t.Observe(cause, Never);
  std::string in_flight = Send(t, cause);
  t.Observe(log.Object(EventType::kModified, "11", 5), Never);  // its echo, before its answer
  std::string newest;
  for (uint64_t seq = 6; seq < 6 + 2 * WriteTracker::kMaxPerObject; ++seq) {
    cause = log.Timer(seq, kT0);
    t.Observe(cause, Never);
    newest = Send(t, cause);
  }
  EXPECT_EQ(t.InFlight("olm", "operators.coreos.com", "Subscription", "ops", "etcd").front()->action,
            in_flight);
  t.Observe(log.Result(in_flight, 100, true, 200, "11"), Never);
  EXPECT_EQ(t.LastOrigin("operators.coreos.com", "Subscription", "ops", "etcd"), Origin::kOurs);
  ASSERT_NE(PendingSub(t), nullptr);
  EXPECT_EQ(PendingSub(t)->action, newest);
}

TEST(WriteTracker, ARetryReplacedInTheQueueIsForgottenBeforeTheWriteInFlight) {
  // The four-domain soak, seed 11: answered writes awaiting their echoes
  // (the watch was late), a write answered 500 that the runtime queued
  // again and a newer write then replaced there (no answer ever comes for
  // it), the write in flight, and one more. Forgetting the write in flight
  // lost the resourceVersion its answer brought: its echo was taken for
  // another writer's change.
  WriteTracker t;
  Log log;
  uint64_t seq = 1;
  for (int i = 0; i < 6; ++i) {  // six answered writes, their echoes not seen yet
    Event cause = log.Timer(seq++, kT0);
    t.Observe(cause, Never);
    std::string id = Send(t, cause);
    t.Observe(log.Result(id, seq++, true, 200, std::to_string(100 + i)), Never);
  }
  Event cause = log.Timer(seq++, kT0);
  t.Observe(cause, Never);
  std::string retried = Send(t, cause);
  t.Observe(log.Result(retried, seq++, false, 500), Never);  // sent again as it was
  cause = log.Timer(seq++, kT0);
  t.Observe(cause, Never);
  std::string in_flight = Send(t, cause);  // replaces the retry in the queue
  cause = log.Timer(seq++, kT0);
  t.Observe(cause, Never);
  std::string newest = Send(t, cause);  // the ninth: one is forgotten
  auto in_flight_now = t.InFlight("olm", "operators.coreos.com", "Subscription", "ops", "etcd");
  std::vector<std::string> ids;
  for (const auto* w : in_flight_now) ids.push_back(w->action);
  EXPECT_NE(std::find(ids.begin(), ids.end(), in_flight), ids.end());
  EXPECT_NE(std::find(ids.begin(), ids.end(), newest), ids.end());
  t.Observe(log.Result(in_flight, seq++, true, 200, "200"), Never);
  ASSERT_NE(t.answered(), nullptr) << "the answer still names its write";
  t.Observe(log.Object(EventType::kModified, "200", seq++), Never);
  EXPECT_EQ(t.origin(), Origin::kOurs);
}

TEST(WorldSynced, ALogWithoutTheFactIsSyncedFromLineOne) {
  World w;
  EXPECT_TRUE(w.Synced());
  w.MergeFacts(Json{{"synced", false}});
  EXPECT_FALSE(w.Synced());
  w.MergeFacts(Json{{"version", "4.16.0"}});
  EXPECT_FALSE(w.Synced());
  w.MergeFacts(Json{{"synced", true}});
  EXPECT_TRUE(w.Synced());
}

}  // namespace
}  // namespace recon::engine
