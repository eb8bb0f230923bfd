// metadata.managedFields as the simulated API server writes them: the
// manager from fieldManager or the User-Agent, one entry per (manager,
// operation, apiVersion, subresource), fields moving between managers,
// removed fields dropped, the time stamped only when a field changed.
#include "adapters/sim/managed_fields.h"

#include <gtest/gtest.h>

#include "crd/registry.h"
#include "engine/json.h"

namespace recon::sim {
namespace {

using engine::Json;

Json Parse(const char* text) {
  auto j = engine::ParseJson(text);
  EXPECT_TRUE(j.ok()) << text;
  return j.ok() ? *j : Json();
}

FieldManagerWrite Write(const char* manager, const char* time, const char* sub = "",
                        bool status_sub = false) {
  return FieldManagerWrite{manager, sub, time, status_sub, nullptr};
}

const Json& Managed(const Json& o) { return engine::Path(o, {"metadata", "managedFields"}); }

TEST(ManagedFields, ManagerFromTheParameterElseTheUserAgentPrefix) {
  EXPECT_EQ(*RequestFieldManager("cluster-samples-operator", "recon-agent", "UpdateOptions"),
            "cluster-samples-operator");
  EXPECT_EQ(*RequestFieldManager("", "kubectl/v1.32.0 (linux/amd64) kubernetes/abcdef", "CreateOptions"),
            "kubectl");
  EXPECT_EQ(*RequestFieldManager("", "curl/8.5.0", "CreateOptions"), "curl");
  EXPECT_EQ(*RequestFieldManager("", "", "CreateOptions"), "");
  EXPECT_EQ(*RequestFieldManager("", "a\tb/1", "CreateOptions"), "ab");  // unprintable dropped
  EXPECT_EQ(RequestFieldManager("", std::string(200, 'x'), "CreateOptions")->size(), 128u);
  auto too_long = RequestFieldManager(std::string(129, 'm'), "", "PatchOptions");
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(
      too_long.status().message(),
      "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Too long: may not be more than 128 bytes");
  EXPECT_FALSE(RequestFieldManager("a\x01", "", "UpdateOptions").ok());
}

TEST(ManagedFields, CreateOwnsEveryFieldButIdentityAndServerMetadata) {
  Json cm = Parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"n",
      "labels":{"app":"x"},"uid":"u","resourceVersion":"3"},"data":{"a":"1","b":"2"}})");
  TrackManagedFields(nullptr, cm, Write("kubectl-create", "2026-11-21T10:00:00Z"));
  EXPECT_EQ(
      engine::Dump(Managed(cm)),
      R"([{"manager":"kubectl-create","operation":"Update","apiVersion":"v1","time":"2026-11-21T10:00:00Z",)"
      R"("fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:a":{},"f:b":{}},)"
      R"("f:metadata":{"f:labels":{".":{},"f:app":{}}}}}])");
}

TEST(ManagedFields, AnUpdateTakesTheFieldsItChangedFromTheirOwner) {
  Json v1 = Parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"n"},
      "data":{"a":"1","b":"2"}})");
  TrackManagedFields(nullptr, v1, Write("creator", "2026-11-21T10:00:00Z"));
  Json v2 = v1;
  v2["data"]["a"] = "changed";
  v2["data"]["c"] = "new";
  v2["data"].erase("b");
  TrackManagedFields(&v1, v2, Write("editor", "2026-11-21T10:05:00Z"));
  EXPECT_EQ(engine::Dump(Managed(v2)),
            R"([{"manager":"creator","operation":"Update","apiVersion":"v1","time":"2026-11-21T10:00:00Z",)"
            R"("fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}},)"
            R"({"manager":"editor","operation":"Update","apiVersion":"v1","time":"2026-11-21T10:05:00Z",)"
            R"("fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{},"f:c":{}}}}])");
  // The same values again change nothing: the entries (and their times) stay.
  Json v3 = v2;
  TrackManagedFields(&v2, v3, Write("third", "2026-11-21T10:09:00Z"));
  EXPECT_EQ(Managed(v3), Managed(v2));
  // A second write by the same manager updates its one entry in place.
  Json v4 = v2;
  v4["data"]["d"] = "x";
  TrackManagedFields(&v2, v4, Write("editor", "2026-11-21T10:10:00Z"));
  ASSERT_EQ(Managed(v4).size(), 2u);
  EXPECT_EQ(engine::Dump(Managed(v4)[1]["fieldsV1"]), R"({"f:data":{"f:a":{},"f:c":{},"f:d":{}}})");
  EXPECT_EQ(engine::GetString(Managed(v4)[1], {"time"}), "2026-11-21T10:10:00Z");
}

TEST(ManagedFields, ARemovedFieldLeavesEveryEntryAndAnEmptyEntryGoes) {
  Json v1 = Parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}})");
  TrackManagedFields(nullptr, v1, Write("creator", "2026-11-21T10:00:00Z"));
  Json v2 = v1;
  v2.erase("data");
  v2["metadata"]["labels"] = {{"l", "v"}};
  TrackManagedFields(&v1, v2, Write("editor", "2026-11-21T10:01:00Z"));
  ASSERT_EQ(Managed(v2).size(), 1u);
  EXPECT_EQ(engine::GetString(Managed(v2)[0], {"manager"}), "editor");
}

TEST(ManagedFields, AStatusWriteOwnsConditionsByTypeUnderTheStatusSubresource) {
  auto crds = crd::Registry::Builtin();
  ASSERT_TRUE(crds.ok());
  const crd::Kind* k = crds->Find("config.openshift.io", "v1", "ClusterOperator");
  ASSERT_NE(k, nullptr);
  Json live = Parse(R"({"apiVersion":"config.openshift.io/v1","kind":"ClusterOperator",
      "metadata":{"name":"openshift-samples"},"spec":{},
      "status":{"conditions":[{"type":"Available","status":"True","reason":"A"}]}})");
  Json next = live;
  next["status"]["conditions"][0]["reason"] = "B";
  next["status"]["conditions"].push_back({{"type", "Progressing"}, {"status", "False"}});
  next["spec"]["ignored"] = 1;  // a status write never owns spec
  FieldManagerWrite w{"cluster-samples-operator", "status", "2026-11-21T10:00:00Z", true, &k->schema->root()};
  TrackManagedFields(&live, next, w);
  EXPECT_EQ(
      engine::Dump(Managed(next)),
      R"([{"manager":"cluster-samples-operator","operation":"Update","apiVersion":"config.openshift.io/v1",)"
      R"("time":"2026-11-21T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:conditions":{)"
      R"("k:{\"type\":\"Available\"}":{"f:reason":{}},)"
      R"("k:{\"type\":\"Progressing\"}":{".":{},"f:status":{},"f:type":{}}}}},"subresource":"status"}])");
  // A main-resource write of the same type never owns status.
  Json spec = live;
  spec["spec"]["x"] = 1;
  spec["status"]["conditions"][0]["reason"] = "C";
  FieldManagerWrite main{"m", "", "2026-11-21T10:00:00Z", true, &k->schema->root()};
  TrackManagedFields(&live, spec, main);
  EXPECT_EQ(engine::Dump(Managed(spec)[0]["fieldsV1"]), R"({"f:spec":{"f:x":{}}})");
}

TEST(ManagedFields, EntriesAClientSendsAreKeptAndSubresourceWritesStartFromTheLiveOnes) {
  Json live = Parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}})");
  TrackManagedFields(nullptr, live, Write("creator", "2026-11-21T10:00:00Z"));
  // A client that echoes the entries it read (recon's agents do) changes nothing.
  Json echo = live;
  TrackManagedFields(&live, echo, Write("other", "2026-11-21T10:01:00Z"));
  EXPECT_EQ(Managed(echo), Managed(live));
  // One that sends its own list sets them.
  Json reset = live;
  reset["metadata"]["managedFields"] = Json::array({{{"manager", "imported"},
                                                     {"operation", "Update"},
                                                     {"fieldsType", "FieldsV1"},
                                                     {"fieldsV1", {{"f:data", {{"f:a", Json::object()}}}}}}});
  TrackManagedFields(&live, reset, Write("other", "2026-11-21T10:01:00Z"));
  ASSERT_EQ(Managed(reset).size(), 1u);
  EXPECT_EQ(engine::GetString(Managed(reset)[0], {"manager"}), "imported");
}

}  // namespace
}  // namespace recon::sim
