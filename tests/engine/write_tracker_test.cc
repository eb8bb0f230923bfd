// The engine's write tracker (engine/write_tracker.h): our echoes are told
// from other writers' changes by resourceVersion alone, stale echoes of
// earlier writes never hide a newer write, failures settle, and the state
// survives a snapshot.
#include "engine/write_tracker.h"

#include <string>

#include "gtest/gtest.h"
#include "tests/engine/write_tracker_log.h"

namespace recon::engine {
namespace {

using namespace recon::engine::testing;

TEST(WriteTracker, AWritesBodyIsParsedOnceAndNullWhenItDoesNotParse) {
  TrackedWrite w;
  w.body = R"({"metadata":{"name":"a"}})";
  const Json& j = w.json();
  EXPECT_EQ(GetString(j, {"metadata", "name"}), "a");
  EXPECT_EQ(&w.json(), &j);  // the same tree, not a second parse
  TrackedWrite bad;
  bad.body = "{not json";
  EXPECT_TRUE(bad.json().is_null());
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

  t.Observe(log.Object(records::EventType::kModified, "5", 3), Never);
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
  t.Observe(log.Object(records::EventType::kModified, "103", seq++), Never);
  EXPECT_EQ(t.origin(), Origin::kOurs);
  ASSERT_NE(PendingSub(t), nullptr);
  EXPECT_EQ(PendingSub(t)->action, ids.back()) << "the newest write still holds";
  t.Observe(log.Object(records::EventType::kModified, "119", seq++), Never);
  EXPECT_EQ(t.origin(), Origin::kOurs);
  EXPECT_EQ(PendingSub(t), nullptr);
}

TEST(WriteTracker, AnotherWritersChangeWinsOverOurUnansweredWriteUntilItsAnswer) {
  WriteTracker t;
  Log log;
  std::string id = SendAtSeq1(t, log);
  t.Observe(log.Object(records::EventType::kModified, "7", 2), Never);
  EXPECT_EQ(t.origin(), Origin::kOther);
  EXPECT_EQ(PendingSub(t), nullptr) << "the other writer's state wins";
  EXPECT_EQ(t.InFlight("olm", "operators.coreos.com", "Subscription", "ops", "etcd").size(), 1u);
  // Our write landed after it (rv 8): ours is the newer state again.
  t.Observe(log.Result(id, 3, true, 200, "8"), Never);
  ASSERT_NE(PendingSub(t), nullptr);
  t.Observe(log.Object(records::EventType::kModified, "8", 4), Never);
  EXPECT_EQ(t.origin(), Origin::kOurs);
}

TEST(WriteTracker, AnAnsweredWriteIsOverriddenByALaterChangeOfAnotherWriter) {
  WriteTracker t;
  Log log;
  std::string id = SendAtSeq1(t, log);
  t.Observe(log.Result(id, 2, true, 200, "8"), Never);
  t.Observe(log.Object(records::EventType::kModified, "9", 3), Never);
  EXPECT_EQ(t.origin(), Origin::kOther);
  EXPECT_EQ(PendingSub(t), nullptr);
  // Its echo still arrives late (a watch that was behind): still ours.
  t.Observe(log.Object(records::EventType::kModified, "8", 4), Never);
  EXPECT_EQ(t.origin(), Origin::kOurs);
}

TEST(WriteTracker, AnEchoSeenBeforeItsAnswerIsOursOnceTheAnswerComes) {
  WriteTracker t;
  Log log;
  std::string id = SendAtSeq1(t, log);
  t.Observe(log.Object(records::EventType::kModified, "12", 2), Never);
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
  t.Observe(log.Object(records::EventType::kModified, "31", 3), Never);
  EXPECT_EQ(t.Refused("olm", "operators.coreos.com", "Subscription", "ops", "etcd"), nullptr);
}

TEST(WriteTracker, AConflictWhoseNewerObjectCameFirstIsNotHeld) {
  WriteTracker t;
  Log log;
  std::string id = SendAtSeq1(t, log);
  // Another writer's change lands while our write is on its way; our write
  // then conflicts with it. The world already shows the newer object.
  t.Observe(log.Object(records::EventType::kModified, "31", 2), Never);
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
  t.Observe(log.Object(records::EventType::kModified, "31", 3), Never);
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
  t.Observe(log.Object(records::EventType::kDeleted, "33", 8), Never);
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
  t.Observe(log.Object(records::EventType::kDeleted, "20", 3), Never);
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
  t.Observe(log.Object(records::EventType::kAdded, "10", 1), Never);
  Event cause = log.Timer(2, kT0);
  t.Observe(cause, Never);
  std::string id = Send(t, cause, "olm", "delete");
  t.Observe(log.Result(id, 3, true, 200, "10"), Never);
  ASSERT_NE(PendingSub(t), nullptr);
  EXPECT_EQ(PendingSub(t)->verb, "delete");
  t.Observe(log.Timer(4, kT0 + kSec), Never);
  ASSERT_NE(PendingSub(t), nullptr);
  t.Observe(log.Object(records::EventType::kDeleted, "11", 5), Never);
  EXPECT_EQ(t.origin(), Origin::kOurs);
  EXPECT_EQ(PendingSub(t), nullptr);
}

// The Deleted event before the delete's answer: the answer settles it, so
// a later delete of the object created again is not taken for a repeat
// (the samples soak: an import's ConfigMap never deleted again).
TEST(WriteTracker, ADeleteWhoseDeletedEventCameFirstIsDoneAtItsAnswer) {
  WriteTracker t;
  Log log;
  t.Observe(log.Object(records::EventType::kAdded, "10", 1), Never);
  Event cause = log.Timer(2, kT0);
  t.Observe(cause, Never);
  std::string id = Send(t, cause, "olm", "delete");
  t.Observe(log.Object(records::EventType::kDeleted, "11", 3), Never);
  t.Observe(log.Result(id, 4, true, 200, "10"), Never);
  EXPECT_EQ(PendingSub(t), nullptr);
  EXPECT_EQ(t.in_flight_count(), 0u);
  t.Observe(log.Object(records::EventType::kAdded, "12", 5), Never);
  EXPECT_EQ(PendingSub(t), nullptr);
}

TEST(WriteTracker, AnAnswerWithoutResourceVersionFromAnOldLogIsEchoedByTheNextEvent) {
  WriteTracker t;
  Log log;
  std::string id = SendAtSeq1(t, log);
  t.Observe(log.Result(id, 2, true, 200), Never);
  ASSERT_NE(PendingSub(t), nullptr);
  t.Observe(log.Object(records::EventType::kModified, "30", 3), Never);
  EXPECT_EQ(t.origin(), Origin::kOurs);
  EXPECT_EQ(PendingSub(t), nullptr);
}

// The samples soak failure (CI, seeds 19 and 22 under load): a create
// answered with its resourceVersion whose echo the watch lost, then a
// create of the same object refused AlreadyExists. The object's next event,
// newer than both, ends both: the first was left pending for good, and the
// domain never decided again on the object (a failed update's redecision
// waits while a write is pending).
TEST(WriteTracker, AnEventNewerThanALostEchoEndsItWithTheAlreadyExistsCreate) {
  WriteTracker t;
  Log log;
  Event c1 = log.Timer(1, kT0);
  t.Observe(c1, Never);
  std::string created = Send(t, c1, "olm", "create");
  t.Observe(log.Result(created, 2, true, 201, "239"), Never);
  Event c2 = log.Timer(3, kT0 + kSec);
  t.Observe(c2, Never);
  std::string again = Send(t, c2, "olm", "create");
  t.Observe(log.Result(again, 4, false, 409), Never);
  ASSERT_NE(PendingSub(t), nullptr);
  t.Observe(log.Object(records::EventType::kAdded, "422", 5), Never);
  EXPECT_EQ(PendingSub(t), nullptr);
  EXPECT_EQ(t.in_flight_count(), 0u);
  EXPECT_FALSE(t.Produced("operators.coreos.com", "Subscription", "ops", "etcd", "239"));
}

// An event older than what a write of ours produced (a late one) ends the
// AlreadyExists create but not that write: its echo is still to come.
TEST(WriteTracker, AnOlderEventEndsTheAlreadyExistsCreateButNotANewerAnsweredWrite) {
  WriteTracker t;
  Log log;
  Event c1 = log.Timer(1, kT0);
  t.Observe(c1, Never);
  std::string created = Send(t, c1, "olm", "create");
  t.Observe(log.Result(created, 2, true, 201, "500"), Never);
  Event c2 = log.Timer(3, kT0 + kSec);
  t.Observe(c2, Never);
  std::string again = Send(t, c2, "olm", "create");
  t.Observe(log.Result(again, 4, false, 409), Never);
  t.Observe(log.Object(records::EventType::kAdded, "422", 5), Never);
  ASSERT_NE(PendingSub(t), nullptr);
  EXPECT_EQ(PendingSub(t)->action, created);
  EXPECT_EQ(t.in_flight_count(), 1u);
}

// The object's event came while the create was on its way: its
// AlreadyExists answer finds the world showing the object, and the create
// is done (samples soak, seed 14: it held a failed update's redecision).
TEST(WriteTracker, AnAlreadyExistsAnswerAfterTheObjectsEventIsDone) {
  WriteTracker t;
  Log log;
  Event c1 = log.Timer(1, kT0);
  t.Observe(c1, Never);
  std::string create = Send(t, c1, "olm", "create");
  t.Observe(log.Object(records::EventType::kAdded, "7", 2), Never);
  t.Observe(log.Result(create, 3, false, 409), Never);
  EXPECT_EQ(PendingSub(t), nullptr);
  EXPECT_EQ(t.in_flight_count(), 0u);
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

}  // namespace
}  // namespace recon::engine
