#include "shadow/compare.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "engine/jsonl_reader.h"
#include "engine/world.h"
#include "records/record.h"

namespace recon::shadow {
namespace {

// A hand-built log: JSONL lines, each with the actions the domains
// computed for it (written as predictions by hand, not by a reducer).
class Log {
 public:
  explicit Log(Options options) : comparator_(std::move(options)) {}

  // Feeds the event on `line` (seq = lines so far + 1) with `actions`.
  void Feed(const std::string& line, std::vector<records::ActionRecord> actions = {}) {
    auto record = reader_.ParseLine(line, seq_ + 1);
    ASSERT_TRUE(record.ok()) << record.status();
    records_.push_back(std::move(*record));
    ++seq_;
    for (auto& a : actions) a.cause_seq = seq_;
    comparator_.Observe(engine::Event::FromRecord(seq_, records_.back()), actions);
    for (auto& f : comparator_.TakeDecided()) findings_.push_back(std::move(f));
  }
  const std::vector<Finding>& findings() const { return findings_; }
  Comparator& comparator() { return comparator_; }

 private:
  engine::JsonlReader reader_;
  Comparator comparator_;
  std::deque<records::EventRecord> records_;  // events view into these
  uint64_t seq_ = 0;
  std::vector<Finding> findings_;
};

records::ActionRecord Action(std::string verb, std::string kind, std::string ns, std::string name,
                             std::string body, uint32_t index = 0, std::string domain = "samples") {
  records::ActionRecord a;
  a.index = index;
  a.domain = std::move(domain);
  a.verb = std::move(verb);
  a.object.kind = std::move(kind);
  a.object.ns = std::move(ns);
  a.object.name = std::move(name);
  a.body = std::move(body);
  return a;
}

std::string Timer(const std::string& time) {
  return R"({"time":")" + time + R"(","type":"Timer","timer":"samples/tick"})";
}

std::string ConfigMap(const std::string& time, const std::string& type, const std::string& data,
                      const std::string& managed = "") {
  std::string mf = managed.empty() ? "" : R"(,"managedFields":)" + managed;
  return R"({"time":")" + time + R"(","type":")" + type +
         R"(","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"ns","name":"cm")" + mf +
         R"(},"data":)" + data + "}}";
}

constexpr char kCmBody[] =
    R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"ns","name":"cm"},"data":{"a":"1","b":"2"}})";

TEST(ShadowCompare, CreateMatchesWhenTheObjectAppearsWithThePredictedFields) {
  Log log({});
  log.Feed(Timer("2026-11-21T10:00:00Z"), {Action("create", "ConfigMap", "ns", "cm", kCmBody)});
  // Extra fields (the server's, another writer's) are not differences.
  log.Feed(ConfigMap("2026-11-21T10:00:30Z", "Added", R"({"a":"1","b":"2","c":"3"})"));
  ASSERT_EQ(log.findings().size(), 1u);
  const Finding& f = log.findings()[0];
  EXPECT_EQ(f.result, Result::kMatch);
  EXPECT_EQ(f.verb, "create");
  EXPECT_EQ(f.action, "1.0");
  EXPECT_EQ(f.cause, 1u);
  EXPECT_EQ(f.decided, 2u);
  EXPECT_TRUE(log.comparator().Open().empty());
}

TEST(ShadowCompare, UpdateDiffersNamesTheFieldPathsAndBothValues) {
  Log log({});
  log.Feed(ConfigMap("2026-11-21T10:00:00Z", "Added", R"({"a":"0"})"));
  log.Feed(Timer("2026-11-21T10:00:01Z"), {Action("update", "ConfigMap", "ns", "cm", kCmBody)});
  log.Feed(ConfigMap("2026-11-21T10:00:40Z", "Modified", R"({"a":"1","b":"9"})"));
  EXPECT_TRUE(log.findings().empty());  // decided when the window closes, not at the first change
  log.Feed(Timer("2026-11-21T10:02:02Z"));
  ASSERT_EQ(log.findings().size(), 1u);
  const Finding& f = log.findings()[0];
  EXPECT_EQ(f.result, Result::kDiffers);
  ASSERT_EQ(f.diffs.size(), 1u);
  EXPECT_EQ(f.diffs[0], (FieldDiff{"data.b", "\"2\"", "\"9\""}));
}

TEST(ShadowCompare, ALaterChangeWithinTheWindowStillMatches) {
  Log log({});
  log.Feed(Timer("2026-11-21T10:00:00Z"), {Action("update", "ConfigMap", "ns", "cm", kCmBody)});
  log.Feed(ConfigMap("2026-11-21T10:00:10Z", "Modified", R"({"a":"1"})"));
  log.Feed(ConfigMap("2026-11-21T10:02:00Z", "Modified", R"({"a":"1","b":"2"})"));  // at the window's end
  ASSERT_EQ(log.findings().size(), 1u);
  EXPECT_EQ(log.findings()[0].result, Result::kMatch);
  EXPECT_EQ(log.findings()[0].decided, 3u);
}

TEST(ShadowCompare, MissedOnlyOnceTheLogPassesTheWindow) {
  Options o;
  o.window_ns = 30'000'000'000;  // 30s
  Log log(o);
  log.Feed(Timer("2026-11-21T10:00:00Z"), {Action("delete", "ConfigMap", "ns", "cm", kCmBody)});
  log.Feed(Timer("2026-11-21T10:00:30Z"));
  EXPECT_TRUE(log.findings().empty());
  auto open = log.comparator().Open();
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].result, Result::kPending);
  log.Feed(Timer("2026-11-21T10:00:31Z"));
  ASSERT_EQ(log.findings().size(), 1u);
  EXPECT_EQ(log.findings()[0].result, Result::kMissed);
  EXPECT_EQ(log.findings()[0].verb, "delete");
  // The delete coming late is not a match any more.
  log.Feed(ConfigMap("2026-11-21T10:00:40Z", "Deleted", "{}"));
  EXPECT_EQ(log.findings().size(), 1u);
}

TEST(ShadowCompare, DeleteMatchesTheDeletedEvent) {
  Log log({});
  log.Feed(Timer("2026-11-21T10:00:00Z"), {Action("delete", "ConfigMap", "ns", "cm", kCmBody)});
  log.Feed(ConfigMap("2026-11-21T10:00:05Z", "Deleted", "{}"));
  ASSERT_EQ(log.findings().size(), 1u);
  EXPECT_EQ(log.findings()[0].result, Result::kMatch);
}

std::string Dfa(const std::string& time, const std::string& conditions) {
  return R"({"time":")" + time +
         R"(","type":"Modified","object":{"apiVersion":"tools.opdev.io/v1alpha1","kind":"App","metadata":{"namespace":"ns","name":"a"},"status":{"conditions":)" +
         conditions + "}}}";
}

TEST(ShadowCompare, UpdateStatusComparesConditionsWholeNotTimes) {
  const std::string predicted =
      R"({"apiVersion":"tools.opdev.io/v1alpha1","kind":"App","metadata":{"namespace":"ns","name":"a"},"status":{"conditions":[{"type":"Available","status":"True","reason":"Ready","message":"ours","lastTransitionTime":"2026-11-21T10:00:00Z"}]}})";
  auto status_write = [&](uint32_t index) {
    records::ActionRecord a = Action("updateStatus", "App", "ns", "a", predicted, index);
    a.object.group = "tools.opdev.io";  // objects are keyed by group too
    return a;
  };
  Log log({});
  log.Feed(Timer("2026-11-21T10:00:00Z"), {status_write(0), status_write(1)});
  // First prediction matched; the second shares it (same object, same state).
  log.Feed(Dfa(
      "2026-11-21T10:00:02Z",
      R"([{"type":"Available","status":"True","reason":"Ready","message":"ours","lastTransitionTime":"2026-11-21T10:00:01Z"}])"));
  ASSERT_EQ(log.findings().size(), 2u);
  EXPECT_EQ(log.findings()[0].result, Result::kMatch);

  log.Feed(Timer("2026-11-21T10:10:00Z"), {status_write(0)});
  log.Feed(Dfa("2026-11-21T10:10:02Z", R"([{"type":"Available","status":"False","reason":"Degraded"}])"));
  log.Feed(Timer("2026-11-21T10:20:00Z"));
  ASSERT_EQ(log.findings().size(), 3u);
  const Finding& f = log.findings()[2];
  EXPECT_EQ(f.result, Result::kDiffers);
  ASSERT_EQ(f.diffs.size(), 3u);
  EXPECT_EQ(f.diffs[0], (FieldDiff{"status.conditions[type=Available].status", "\"True\"", "\"False\""}));
  EXPECT_EQ(f.diffs[1], (FieldDiff{"status.conditions[type=Available].reason", "\"Ready\"", "\"Degraded\""}));
  EXPECT_EQ(f.diffs[2], (FieldDiff{"status.conditions[type=Available].message", "\"ours\"", "(absent)"}));
}

std::string Managed(const std::string& manager, const std::string& time) {
  return R"([{"manager":")" + manager + R"(","operation":"Update","apiVersion":"v1","time":")" + time +
         R"(","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}}])";
}

TEST(ShadowCompare, UnpredictedIsAWriteByTheShadowedOperatorsFieldManager) {
  Options o;
  o.managers["samples"] = {"cluster-samples-operator"};
  Log log(o);
  log.Feed(
      ConfigMap("2026-11-21T10:00:00Z", "Added", R"({"a":"0"})", Managed("kubectl", "2026-11-21T10:00:00Z")));
  EXPECT_TRUE(log.findings().empty());  // another writer: not the operator's
  log.Feed(ConfigMap("2026-11-21T10:01:00Z", "Modified", R"({"a":"5"})",
                     Managed("cluster-samples-operator", "2026-11-21T10:01:00Z")));
  ASSERT_EQ(log.findings().size(), 1u);
  const Finding& f = log.findings()[0];
  EXPECT_EQ(f.result, Result::kUnpredicted);
  EXPECT_EQ(f.domain, "samples");
  EXPECT_EQ(f.verb, "Modified");
  EXPECT_EQ(f.manager, "cluster-samples-operator");
  EXPECT_EQ(f.cause, 2u);
  EXPECT_EQ(f.object.name, "cm");

  // The same event again (a resync): nobody wrote.
  log.Feed(ConfigMap("2026-11-21T10:01:30Z", "Modified", R"({"a":"5"})",
                     Managed("cluster-samples-operator", "2026-11-21T10:01:00Z")));
  EXPECT_EQ(log.findings().size(), 1u);

  // A predicted write by the operator is a match, not unpredicted.
  log.Feed(Timer("2026-11-21T10:02:00Z"), {Action("update", "ConfigMap", "ns", "cm", kCmBody)});
  log.Feed(ConfigMap("2026-11-21T10:02:05Z", "Modified", R"({"a":"1","b":"2"})",
                     Managed("cluster-samples-operator", "2026-11-21T10:02:05Z")));
  ASSERT_EQ(log.findings().size(), 2u);
  EXPECT_EQ(log.findings()[1].result, Result::kMatch);
}

TEST(ShadowCompare, APredictionTheWorldAlreadyHoldsIsAMatchAtOnce) {
  // A status write that differs from the object only in a message: the
  // operator has nothing left to write, so it is no miss.
  engine::JsonlReader reader;
  auto added = reader.ParseLine(ConfigMap("2026-11-21T10:00:00Z", "Added", R"({"a":"1","b":"2"})"), 1);
  ASSERT_TRUE(added.ok());
  engine::World world;
  engine::Event e = engine::Event::FromRecord(1, *added);
  world.Apply(e);
  Comparator c({});
  records::ActionRecord update = Action("update", "ConfigMap", "ns", "cm", kCmBody);
  update.cause_seq = 1;
  c.Observe(e, std::span<const records::ActionRecord>(&update, 1), &world);
  auto decided = c.TakeDecided();
  ASSERT_EQ(decided.size(), 1u);
  EXPECT_EQ(decided[0].result, Result::kMatch);
  EXPECT_EQ(decided[0].decided, 1u);
  EXPECT_TRUE(c.Open().empty());
}

TEST(ShadowCompare, TimersAndProbesAreNoPredictions) {
  Log log({});
  records::ActionRecord timer;
  timer.domain = "samples";
  timer.verb = "setTimer";
  timer.timer = "samples/tick";
  log.Feed(Timer("2026-11-21T10:00:00Z"), {timer});
  EXPECT_TRUE(log.comparator().Open().empty());
}

TEST(ShadowCompare, SortFindingsOrdersByCauseThenActionIndexNumerically) {
  std::vector<Finding> f(3);
  f[0].cause = 9;
  f[0].action = "9.10";
  f[1].cause = 9;
  f[1].action = "9.2";
  f[2].cause = 3;
  f[2].action = "3.0";
  SortFindings(&f);
  EXPECT_EQ(f[0].action, "3.0");
  EXPECT_EQ(f[1].action, "9.2");
  EXPECT_EQ(f[2].action, "9.10");
}

TEST(ShadowCompare, APredictionALaterOneOfTheDomainReplacedIsSupersededNotDiffers) {
  // An operator that went two steps at once: only the later prediction's
  // state is ever observed.
  Log log({});
  log.Feed(Timer("2026-11-21T10:00:00Z"), {Action("update", "ConfigMap", "ns", "cm", kCmBody)});
  log.Feed(Timer("2026-11-21T10:00:01Z"),
           {Action("update", "ConfigMap", "ns", "cm",
                   R"({"kind":"ConfigMap","metadata":{"namespace":"ns","name":"cm"},"data":{"a":"3"}})")});
  log.Feed(ConfigMap("2026-11-21T10:00:02Z", "Modified", R"({"a":"3"})"));
  ASSERT_EQ(log.findings().size(), 1u);
  EXPECT_EQ(log.findings()[0].result, Result::kMatch);
  EXPECT_EQ(log.findings()[0].action, "2.0");
  log.Feed(Timer("2026-11-21T10:03:00Z"));
  ASSERT_EQ(log.findings().size(), 2u);
  EXPECT_EQ(log.findings()[1].result, Result::kSuperseded);
  EXPECT_EQ(log.findings()[1].action, "1.0");
  EXPECT_EQ(ResultName(Result::kSuperseded), "superseded");
}

std::string Plan(const std::string& time, const std::string& type, const std::string& name,
                 const std::string& csvs, const std::string& phase = "") {
  std::string status = phase.empty() ? "" : R"(,"status":{"phase":")" + phase + R"("})";
  return R"({"time":")" + time + R"(","type":")" + type +
         R"(","object":{"apiVersion":"operators.coreos.com/v1alpha1","kind":"InstallPlan","metadata":{"namespace":"ops","name":")" +
         name + R"(","managedFields":[{"manager":"catalog","operation":"Update","apiVersion":"operators.coreos.com/v1alpha1","time":")" +
         time + R"(","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{}}}]},"spec":{"clusterServiceVersionNames":)" +
         csvs + R"(,"approval":"Automatic","approved":true})" + status + "}}";
}

records::ActionRecord PlanAction(std::string verb, std::string name, std::string body, uint32_t index = 0) {
  records::ActionRecord a =
      Action(std::move(verb), "InstallPlan", "ops", std::move(name), std::move(body), index, "olm");
  a.object.group = "operators.coreos.com";
  return a;
}

constexpr char kPlanBody[] =
    R"({"apiVersion":"operators.coreos.com/v1alpha1","kind":"InstallPlan","metadata":{"namespace":"ops","name":"install-bcdfg"},"spec":{"clusterServiceVersionNames":["b.v1","a.v1"],"approval":"Automatic","approved":true}})";
constexpr char kPlanStatus[] =
    R"({"apiVersion":"operators.coreos.com/v1alpha1","kind":"InstallPlan","metadata":{"namespace":"ops","name":"install-bcdfg"},"status":{"phase":"Complete"}})";

TEST(ShadowCompare, AnInstallPlanIsMatchedByItsContentAndLaterPredictionsFollowThePairing) {
  Options o;
  o.managers["olm"] = {"catalog", "olm"};
  Log log(o);
  log.Feed(Timer("2026-11-21T10:00:00Z"), {PlanAction("create", "install-bcdfg", kPlanBody)});
  log.Feed(Plan("2026-11-21T10:00:01Z", "Added", "install-q8x2z", R"(["a.v1","b.v1"])"));
  ASSERT_EQ(log.findings().size(), 1u);  // matched, and no unpredicted write
  EXPECT_EQ(log.findings()[0].result, Result::kMatch);
  EXPECT_EQ(log.findings()[0].object.name, "install-q8x2z");
  EXPECT_EQ(log.findings()[0].predicted_name, "install-bcdfg");
  log.Feed(Timer("2026-11-21T10:00:02Z"), {PlanAction("updateStatus", "install-bcdfg", kPlanStatus)});
  log.Feed(Plan("2026-11-21T10:00:03Z", "Modified", "install-q8x2z", R"(["a.v1","b.v1"])", "Complete"));
  ASSERT_EQ(log.findings().size(), 2u);
  EXPECT_EQ(log.findings()[1].result, Result::kMatch);
  EXPECT_EQ(log.findings()[1].verb, "updateStatus");
  EXPECT_EQ(log.findings()[1].object.name, "install-q8x2z");
}

TEST(ShadowCompare, AnInstallPlanTheOperatorCreatedFirstIsClaimedWithinTheWindow) {
  Options o;
  o.managers["olm"] = {"catalog", "olm"};
  Log log(o);
  log.Feed(Plan("2026-11-21T10:00:00Z", "Added", "install-q8x2z", R"(["a.v1","b.v1"])"));
  log.Feed(Plan("2026-11-21T10:00:00Z", "Added", "install-zzzzz", R"(["c.v1"])"));
  EXPECT_TRUE(log.findings().empty());  // either may still be predicted
  log.Feed(Timer("2026-11-21T10:00:05Z"), {PlanAction("create", "install-bcdfg", kPlanBody)});
  log.Feed(Plan("2026-11-21T10:00:06Z", "Modified", "install-q8x2z", R"(["a.v1","b.v1"])", "Installing"));
  ASSERT_EQ(log.findings().size(), 1u);
  EXPECT_EQ(log.findings()[0].result, Result::kMatch);
  EXPECT_EQ(log.findings()[0].object.name, "install-q8x2z");
  log.Feed(Timer("2026-11-21T10:03:00Z"));  // the other plan's window closes: nobody predicted it
  ASSERT_EQ(log.findings().size(), 2u);
  EXPECT_EQ(log.findings()[1].result, Result::kUnpredicted);
  EXPECT_EQ(log.findings()[1].object.name, "install-zzzzz");
  EXPECT_EQ(log.findings()[1].manager, "catalog");
}

TEST(ShadowCompare, AnAdminTakingAFieldOfTheOperatorIsNoWriteByTheOperator) {
  Options o;
  o.managers["samples"] = {"cluster-samples-operator"};
  Log log(o);
  log.Feed(ConfigMap("2026-11-21T10:00:00Z", "Added", R"({"a":"0"})",
                     Managed("cluster-samples-operator", "2026-11-21T10:00:00Z")));
  ASSERT_EQ(log.findings().size(), 1u);  // the first version: written by the operator
  log.Feed(ConfigMap(
      "2026-11-21T10:05:00Z", "Modified", R"({"a":"9"})",
      R"([{"manager":"cluster-samples-operator","operation":"Update","apiVersion":"v1","time":"2026-11-21T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{}},)"
      R"({"manager":"kubectl-patch","operation":"Update","apiVersion":"v1","time":"2026-11-21T10:05:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}}])"));
  EXPECT_EQ(log.findings().size(), 1u);
}

// A list the operator builds from a Go map (a domain's unordered list):
// a write that only reorders it decides nothing and is not judged, but
// counted; one that changes its set, or another field, still is.
TEST(ShadowCompare, AWriteThatOnlyReordersAnUnorderedListIsNotJudged) {
  Options o;
  o.managers["samples"] = {"cluster-samples-operator"};
  o.unordered["samples"] = {"ConfigMap/data.list"};
  Log log(o);
  auto cm = [](const std::string& t, const std::string& data) {
    return ConfigMap(t, "Modified", data, Managed("cluster-samples-operator", t));
  };
  log.Feed(cm("2026-11-21T10:00:00Z", R"({"list":["a","b"],"x":"1"})"));
  ASSERT_EQ(log.findings().size(), 1u);  // the first write: no earlier state to compare with
  log.Feed(cm("2026-11-21T10:01:00Z", R"({"list":["b","a"],"x":"1"})"));
  EXPECT_EQ(log.findings().size(), 1u);
  EXPECT_EQ(log.comparator().reordered(), 1u);
  log.Feed(cm("2026-11-21T10:02:00Z", R"({"list":["b","a","c"],"x":"1"})"));
  log.Feed(cm("2026-11-21T10:03:00Z", R"({"list":["c","b","a"],"x":"2"})"));
  ASSERT_EQ(log.findings().size(), 3u);
  EXPECT_EQ(log.findings()[2].result, Result::kUnpredicted);
  EXPECT_EQ(log.comparator().reordered(), 1u);
}

}  // namespace
}  // namespace recon::shadow
