// The write tracker (engine/write_tracker.h), continued: its snapshot,
// the preconditions it hands writes, echoes that race their answers, and
// writes replaced in the queue.
#include <string>

#include "engine/write_tracker.h"
#include "gtest/gtest.h"
#include "tests/engine/write_tracker_log.h"

namespace recon::engine {
namespace {

using namespace recon::engine::testing;

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
  t.Observe(log.Object(records::EventType::kModified, "39", 4), Never);

  WriteTracker back;
  ASSERT_TRUE(back.FromJson(t.ToJson()).ok());
  EXPECT_EQ(Dump(back.ToJson()), Dump(t.ToJson()));
  EXPECT_TRUE(back.Produced("operators.coreos.com", "Subscription", "ops", "etcd", "40"));
  back.Observe(log.Object(records::EventType::kModified, "40", 5), Never);
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
  t.Observe(log.Object(records::EventType::kModified, "50", 3), Never);
  EXPECT_EQ(t.NewestProduced("operators.coreos.com", "Subscription", "ops", "etcd"), "");
  // Another writer after our echo: its seq stays known once our writes settled.
  t.Observe(log.Object(records::EventType::kModified, "51", 4), Never);
  EXPECT_EQ(t.LastOrigin("operators.coreos.com", "Subscription", "ops", "etcd"), Origin::kOther);
  EXPECT_EQ(t.LastOtherSeq("operators.coreos.com", "Subscription", "ops", "etcd"), 4u);
  t.Observe(log.Object(records::EventType::kDeleted, "52", 5), Never);
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
  t.Observe(log.Object(records::EventType::kDeleted, "312", 2), Never);
  t.Observe(log.Object(records::EventType::kAdded, "315", 3), Never);
  Event cause = log.Timer(4, kT0);
  t.Observe(cause, Never);
  std::string again = Send(t, cause);
  t.Observe(log.Object(records::EventType::kModified, "354", 5), Never);
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
  t.Observe(log.Object(records::EventType::kModified, "10", 3), Never);
  Event cause = log.Timer(4, kT0);
  t.Observe(cause, Never);
  std::string second = Send(t, cause);
  t.Observe(log.Object(records::EventType::kModified, "11", 5), Never);  // its echo, before its answer
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
  t.Observe(log.Object(records::EventType::kModified, "12", 8), Never);
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
  t.Observe(log.Object(records::EventType::kModified, "10", 3), Never);
  Event cause = log.Timer(4, kT0);
  t.Observe(cause, Never);
  std::string second = Send(t, cause);
  t.Observe(log.Object(records::EventType::kModified, "11", 5), Never);  // its echo
  t.Observe(log.Object(records::EventType::kModified, "12", 6), Never);  // another writer's
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
  t.Observe(log.Object(records::EventType::kModified, "11", 4), Never);
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
  t.Observe(log.Object(records::EventType::kModified, "10", 3), Never);
  Event cause = log.Timer(4, kT0);
  t.Observe(cause, Never);
  std::string in_flight = Send(t, cause);
  t.Observe(log.Object(records::EventType::kModified, "11", 5), Never);  // its echo, before its answer
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
  t.Observe(log.Object(records::EventType::kModified, "200", seq++), Never);
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
