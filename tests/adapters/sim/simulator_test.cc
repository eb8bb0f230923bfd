// The simulated cluster's behaviours: results, imports, probes,
// edits and faults.
#include "adapters/sim/simulator.h"

#include <gtest/gtest.h>

#include "base/strings.h"
#include "engine/time_format.h"
#include "tests/adapters/sim/sim_test_util.h"

namespace recon::sim {
namespace {

using engine::Json;
using records::EventType;
using testing::Drain;
using testing::FindResult;
using testing::kSecond;
using testing::MustParse;
using testing::ObjectAction;

Json Stream(std::string_view name, std::string_view image) {
  return Json{
      {"apiVersion", "image.openshift.io/v1"},
      {"kind", "ImageStream"},
      {"metadata", {{"name", name}, {"namespace", "openshift"}}},
      {"spec",
       {{"tags",
         Json::array({{{"name", "latest"}, {"from", {{"kind", "DockerImage"}, {"name", image}}}}})}}}};
}

const Json& StoredStream(const Simulator& sim, std::string_view name) {
  static const Json kNull;
  const Json* o =
      sim.objects().Get(ObjectKey{"image.openshift.io", "ImageStream", "openshift", std::string(name)});
  return o ? *o : kNull;
}

TEST(SimulatorTest, WritesAnswerWithActionResultsAndWatchEvents) {
  Simulator sim(MustParse(R"({"latency": {"api": "10ms", "watch": "20ms"}})"));
  sim.Start();
  int64_t t0 = sim.now();
  Json cm = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "a"}, {"namespace", "x"}}}};
  sim.Apply(ObjectAction(5, 0, "create", cm));
  sim.Apply(ObjectAction(5, 1, "create", cm));
  sim.Apply(ObjectAction(5, 2, "delete",
                         Json{{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"name", "s"}}}}));
  EXPECT_TRUE(sim.HasPendingWork());
  auto events = Drain(sim, t0 + 60 * kSecond);
  ASSERT_EQ(events.size(), 4u);
  const auto* ok = FindResult(events, "5.0");
  ASSERT_NE(ok, nullptr);
  EXPECT_TRUE(ok->action_result.ok);
  EXPECT_EQ(ok->action_result.status, 201);
  EXPECT_EQ(ok->time_ns, t0 + 10'000'000);
  const auto* exists = FindResult(events, "5.1");
  ASSERT_NE(exists, nullptr);
  EXPECT_EQ(exists->action_result.status, 409);
  EXPECT_EQ(FindResult(events, "5.2")->action_result.status, 404);
  EXPECT_EQ(events.back().type, EventType::kAdded);
  EXPECT_EQ(events.back().time_ns, t0 + 20'000'000);
  EXPECT_FALSE(sim.HasPendingWork());
  // A successful write's result carries what its watch event carries
  // (issue 19: the echo is told by resourceVersion); a failed one nothing.
  EXPECT_FALSE(ok->action_result.resource_version.empty());
  EXPECT_EQ(ok->action_result.resource_version, events.back().object.resource_version);
  EXPECT_EQ(ok->action_result.uid, events.back().object.uid);
  EXPECT_TRUE(exists->action_result.resource_version.empty());
}

// A controller's owner-reference patch (the garbage collector's) applies to
// the object as stored when it runs: a change made since is kept, and only
// the named owners go.
TEST(SimulatorTest, AControllersOwnerPatchKeepsWhatChangedSince) {
  Simulator sim(MustParse(R"({"latency": {"api": "10ms", "watch": "20ms"}})"));
  auto owner = [](const char* uid) {
    return Json{{"kind", "ClusterServiceVersion"}, {"name", uid}, {"uid", uid}};
  };
  Json sa = {
      {"apiVersion", "v1"},
      {"kind", "ServiceAccount"},
      {"metadata", {{"name", "sa"}, {"namespace", "x"}, {"ownerReferences", Json::array({owner("old")})}}}};
  bool patched = false;
  sim.SetController([&](const records::EventRecord& e, const ObjectStore&) -> std::vector<ControllerWrite> {
    if (patched || e.type != EventType::kModified) return {};
    patched = true;
    ControllerWrite w{kSecond, "update", sa};
    w.drop_owners = {"old"};
    return {w};
  });
  sim.Start();
  int64_t t0 = sim.now();
  sim.Apply(ObjectAction(1, 0, "create", sa));
  Drain(sim, t0 + kSecond / 2);
  Json both = sa;
  both["metadata"]["ownerReferences"].push_back(owner("new"));
  sim.Apply(ObjectAction(2, 0, "update", both));  // the controller sees this change
  Drain(sim, t0 + kSecond);
  both["metadata"]["labels"] = {{"changed", "since"}};
  sim.Apply(ObjectAction(3, 0, "update", both));  // made after the controller decided
  Drain(sim, t0 + 10 * kSecond);
  const Json* stored = sim.objects().Get(ObjectKey{"", "ServiceAccount", "x", "sa"});
  ASSERT_NE(stored, nullptr);
  EXPECT_EQ(engine::Path(*stored, {"metadata", "ownerReferences"}), Json::array({owner("new")}));
  EXPECT_EQ(engine::GetString(*stored, {"metadata", "labels", "changed"}), "since");
}

// A write that changes nothing gets no event and no new resourceVersion; its
// result names the object's current one, as a real server's answer does.
TEST(SimulatorTest, ANoOpWritesResultCarriesTheUnchangedResourceVersion) {
  Simulator sim(MustParse(R"({"latency": {"api": "10ms", "watch": "20ms"}})"));
  sim.Start();
  int64_t t0 = sim.now();
  Json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata", {{"name", "a"}, {"namespace", "x"}}},
             {"data", {{"k", "v"}}}};
  sim.Apply(ObjectAction(5, 0, "create", cm));
  auto first = Drain(sim, t0 + 60 * kSecond);
  const auto* created = FindResult(first, "5.0");
  ASSERT_NE(created, nullptr);
  std::string rv = created->action_result.resource_version;
  ASSERT_FALSE(rv.empty());
  cm["metadata"]["resourceVersion"] = rv;
  sim.Apply(ObjectAction(6, 0, "update", cm));
  auto second = Drain(sim, sim.now() + 60 * kSecond);
  ASSERT_EQ(second.size(), 1u) << "no watch event for a no-op";
  const auto* same = FindResult(second, "6.0");
  ASSERT_NE(same, nullptr);
  EXPECT_TRUE(same->action_result.ok);
  EXPECT_EQ(same->action_result.resource_version, rv);
}

TEST(SimulatorTest, ImageStreamTagsImportAfterLatencyPerRules) {
  Simulator sim(MustParse(R"({"imports": [
      {"match": "registry.redhat.io/ubi8/ruby-27", "fail": "unauthorized"},
      {"latency": "30s"}]})"));
  sim.Start();
  int64_t t0 = sim.now();
  sim.Apply(ObjectAction(1, 0, "create", Stream("ruby", "registry.redhat.io/ubi8/ruby-27:latest")));
  sim.Apply(ObjectAction(1, 1, "create", Stream("python", "registry.redhat.io/ubi8/python-39:latest")));
  Drain(sim, t0 + 29 * kSecond);
  EXPECT_TRUE(engine::Path(StoredStream(sim, "python"), {"status", "tags"}).is_null());
  EXPECT_TRUE(sim.HasPendingWork());
  auto events = Drain(sim, t0 + 31 * kSecond);
  EXPECT_FALSE(sim.HasPendingWork());
  ASSERT_EQ(events.size(), 2u);  // one Modified per stream
  EXPECT_EQ(events[0].type, EventType::kModified);

  const Json& ok_tag = engine::Path(StoredStream(sim, "python"), {"status", "tags"})[0];
  EXPECT_EQ(ok_tag["tag"], "latest");
  ASSERT_EQ(ok_tag["items"].size(), 1u);
  EXPECT_TRUE(engine::GetString(ok_tag["items"][0], {"dockerImageReference"})
                  .starts_with("registry.redhat.io/ubi8/python-39@sha256:"));
  EXPECT_FALSE(ok_tag.contains("conditions"));

  const Json& bad_tag = engine::Path(StoredStream(sim, "ruby"), {"status", "tags"})[0];
  ASSERT_TRUE(bad_tag["conditions"].is_array());
  const Json& cond = bad_tag["conditions"][0];
  EXPECT_EQ(cond["type"], "ImportSuccess");
  EXPECT_EQ(cond["status"], "False");
  EXPECT_EQ(cond["reason"], "Unauthorized");
  EXPECT_EQ(cond["message"],
            "you may not have access to the container image \"registry.redhat.io/ubi8/ruby-27:latest\"");
  EXPECT_EQ(sim.stats().imports_ok, 1u);
  EXPECT_EQ(sim.stats().imports_failed, 1u);

  // Pointing the tag at another image imports again; a status-only change does not.
  Json s = StoredStream(sim, "ruby");
  s["spec"]["tags"][0]["from"]["name"] = "registry.redhat.io/ubi9/ruby-30:latest";
  sim.Apply(ObjectAction(2, 0, "update", s));
  Drain(sim, sim.now() + 60 * kSecond);
  const Json& fixed = engine::Path(StoredStream(sim, "ruby"), {"status", "tags"})[0];
  EXPECT_FALSE(fixed.contains("conditions"));
  EXPECT_EQ(sim.stats().imports_ok, 2u);
}

TEST(SimulatorTest, ImportImageActionIsSynchronousAndSetsSpecAndStatus) {
  Simulator sim(MustParse(
      R"({"imports": [{"match": "quay.io/bad", "fail": "notfound", "times": 1}, {"latency": "5s"}]})"));
  sim.Start();
  int64_t t0 = sim.now();
  Json isi = {{"apiVersion", "image.openshift.io/v1"},
              {"kind", "ImageStreamImport"},
              {"metadata", {{"name", "tool"}, {"namespace", "openshift"}}},
              {"spec",
               {{"import", true},
                {"images", Json::array({{{"from", {{"kind", "DockerImage"}, {"name", "quay.io/bad/tool:1"}}},
                                         {"to", {{"name", "1"}}},
                                         {"referencePolicy", {{"type", "Local"}}}}})}}}};
  sim.Apply(ObjectAction(3, 0, "importImage", isi));
  auto events = Drain(sim, t0 + 10 * kSecond);
  const auto* r = FindResult(events, "3.0");
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(r->action_result.ok);
  EXPECT_EQ(r->time_ns, t0 + 5 * kSecond + 1'000'000);  // latency, then the answer
  const Json& stream = StoredStream(sim, "tool");
  ASSERT_TRUE(stream.is_object()) << "the import creates a missing stream";
  EXPECT_EQ(stream["spec"]["tags"][0]["referencePolicy"]["type"], "Local");
  EXPECT_EQ(stream["status"]["tags"][0]["conditions"][0]["reason"], "NotFound");
  // `times: 1`: the retry succeeds.
  sim.Apply(ObjectAction(4, 0, "importImage", isi));
  Drain(sim, sim.now() + 10 * kSecond);
  const Json& retried = StoredStream(sim, "tool");
  EXPECT_FALSE(retried["status"]["tags"][0].contains("conditions"));
  EXPECT_EQ(retried["status"]["tags"][0]["items"].size(), 1u);
}

TEST(SimulatorTest, ProbesAnswerPerRuleAndTimeWindow) {
  Simulator sim(MustParse(R"({"probes": [
      {"probe": "aro/internet/master", "target": "https://management.azure.com/", "ok": false, "after": "2m"},
      {"probe": "aro/serviceprincipal", "ok": true, "data": {"oid": "x"}}]})"));
  sim.Start();
  int64_t t0 = sim.now();
  records::ActionRecord p;
  p.cause_seq = 1;
  p.verb = "probe";
  p.probe = "aro/internet/master";
  p.target = "https://management.azure.com/";
  sim.Apply(p);
  auto before = Drain(sim, t0 + 3 * kSecond);
  ASSERT_EQ(before.size(), 1u);
  EXPECT_EQ(before[0].type, EventType::kProbe);
  EXPECT_TRUE(before[0].probe.ok);
  EXPECT_EQ(before[0].probe.status, 200);
  EXPECT_EQ(before[0].probe.target, "https://management.azure.com/");
  EXPECT_EQ(before[0].time_ns, t0 + 100'000'000);

  sim.AdvanceClock(t0 + 150 * kSecond);
  sim.Apply(p);
  auto after = Drain(sim, t0 + 200 * kSecond);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_FALSE(after[0].probe.ok);
  EXPECT_EQ(after[0].probe.detail, "dial tcp: i/o timeout");

  p.probe = "aro/serviceprincipal";
  p.target = "https://graph.microsoft.com/.default";
  sim.Apply(p);
  auto sp = Drain(sim, t0 + 300 * kSecond);
  ASSERT_EQ(sp.size(), 1u);
  EXPECT_EQ(sp[0].probe.data, R"({"oid":"x"})");
}

TEST(SimulatorTest, DisconnectedClustersFailProbesByDefault) {
  Simulator sim(MustParse(R"({"facts": {"disconnected": true}})"));
  sim.Start();
  records::ActionRecord p;
  p.verb = "probe";
  p.probe = "samples/registry";
  p.target = "https://registry.redhat.io/";
  sim.Apply(p);
  auto e = Drain(sim, sim.now() + kSecond);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_FALSE(e[0].probe.ok);
}

TEST(SimulatorTest, InitialObjectsAndTimedEdits) {
  Simulator sim(MustParse(R"({
    "objects": [{"apiVersion": "samples.operator.openshift.io/v1", "kind": "Config",
                 "metadata": {"name": "cluster", "finalizers": ["f"]}, "spec": {"managementState": "Managed"},
                 "status": {"managementState": "Managed"}}],
    "edits": [
      {"at": "2m", "set": {"kind": "Config", "name": "cluster", "path": "spec.managementState", "value": "Removed"}},
      {"at": "3m", "delete": {"kind": "Config", "name": "cluster"}},
      {"at": "4m", "set": {"kind": "Config", "name": "nope", "path": "spec.x", "value": 1}}]})"));
  auto initial = sim.Start();
  int64_t t0 = sim.now();
  ASSERT_EQ(initial.size(), 1u);
  EXPECT_EQ(initial[0].type, EventType::kAdded);
  EXPECT_NE(initial[0].body.find("\"status\""), std::string::npos) << "initial objects keep their status";
  EXPECT_TRUE(sim.HasPendingWork()) << "edits to come are pending work";
  auto events = Drain(sim, t0 + 10 * 60 * kSecond);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].time_ns, t0 + 120 * kSecond + 2'000'000);
  EXPECT_NE(events[0].body.find("Removed"), std::string::npos);
  EXPECT_NE(events[0].body.find("\"generation\":2"), std::string::npos);
  EXPECT_NE(events[1].body.find("deletionTimestamp"), std::string::npos);
  EXPECT_EQ(sim.stats().edits_applied, 2u);
  EXPECT_EQ(sim.stats().edits_failed, 1u);
  ASSERT_EQ(sim.stats().warnings.size(), 1u);
}

// Which of 200 creates fail, and which watch events come through, under a
// seed: a fingerprint of the run.
std::string FaultFingerprint(uint64_t seed) {
  Scenario s = MustParse(
      R"({"faults": {"writeErrors": [{"status": 409, "fraction": 0.2}, {"status": 500, "fraction": 0.1}],
                                         "dropWatch": 0.1, "delayWatch": {"fraction": 0.2, "by": "5s"}}})");
  s.seed = seed;
  Simulator sim(s);
  sim.Start();
  for (uint32_t i = 0; i < 200; ++i) {
    Json cm = {{"apiVersion", "v1"},
               {"kind", "ConfigMap"},
               {"metadata", {{"name", recon::StrCat("c", i)}, {"namespace", "x"}}}};
    sim.Apply(ObjectAction(1, i, "create", cm));
  }
  std::string out;
  for (const auto& e : Drain(sim, sim.now() + 60 * kSecond)) {
    if (e.type == EventType::kActionResult) {
      recon::StrAppend(&out, e.action_result.action, "=", e.action_result.status.value_or(0), " ");
    } else {
      recon::StrAppend(&out, e.object.name, "@", e.time_ns - s.start_ns, " ");
    }
  }
  return out;
}

TEST(SimulatorTest, FaultsAreDeterministicPerSeed) {
  std::string a = FaultFingerprint(11);
  EXPECT_EQ(a, FaultFingerprint(11));
  EXPECT_NE(a, FaultFingerprint(12));
  EXPECT_NE(a.find("=409"), std::string::npos);
  EXPECT_NE(a.find("=500"), std::string::npos);
}

TEST(SimulatorTest, FaultRatesAndStreamOrder) {
  Scenario s = MustParse(R"({"faults": {"writeErrors": [{"status": 429, "fraction": 0.25}],
                                         "dropWatch": 0.2, "delayWatch": {"fraction": 0.2, "by": "5s"}, "resync": "1m"}})");
  Simulator sim(s);
  sim.Start();
  for (uint32_t i = 0; i < 400; ++i) {
    Json cm = {{"apiVersion", "v1"},
               {"kind", "ConfigMap"},
               {"metadata", {{"name", recon::StrCat("c", i)}, {"namespace", "x"}}}};
    sim.Apply(ObjectAction(1, i, "create", cm));
  }
  auto events = Drain(sim, sim.now() + 30 * kSecond);
  uint64_t failed = sim.stats().injected_write_errors, created = 400 - failed;
  EXPECT_GT(failed, 60u);
  EXPECT_LT(failed, 140u);
  EXPECT_GT(sim.stats().watch_dropped, created / 10);
  EXPECT_LT(sim.stats().watch_dropped, created * 3 / 10);
  // A watch never reorders: delivery times never go back.
  int64_t last = 0;
  for (const auto& e : events) {
    if (e.type != EventType::kAdded) continue;
    EXPECT_GE(e.time_ns, last);
    last = e.time_ns;
  }
  // The relist brings every dropped object back.
  auto resynced = Drain(sim, sim.now() + 120 * kSecond);
  uint64_t added = 0;
  for (const auto& e : events) added += e.type == EventType::kAdded;
  for (const auto& e : resynced) added += e.type == EventType::kAdded;
  EXPECT_EQ(added, created);
  EXPECT_EQ(sim.stats().watch_resynced, sim.stats().watch_dropped);
}

}  // namespace
}  // namespace recon::sim
