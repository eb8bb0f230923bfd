// The simulated cluster's stand-in for what recon does not do of an OLM
// install (adapters/sim/olm_stand_in.h): a CSV that another Succeeded one
// replaces goes, whichever of the two came first (as OLM's operator does);
// a created CSV turns Succeeded; orphaned plans are collected.
#include "adapters/sim/olm_stand_in.h"

#include <gtest/gtest.h>

namespace recon::sim {
namespace {

using engine::Json;

constexpr char kNs[] = "olm-soak-0";

Json Csv(const std::string& name, const std::string& replaces, const std::string& phase) {
  Json c = {{"apiVersion", "operators.coreos.com/v1alpha1"},
            {"kind", "ClusterServiceVersion"},
            {"metadata", {{"name", name}, {"namespace", kNs}}},
            {"spec", Json::object()}};
  if (!replaces.empty()) c["spec"]["replaces"] = replaces;
  if (!phase.empty()) c["status"] = {{"phase", phase}};
  return c;
}

ObjectKey Key(const std::string& name) {
  return ObjectKey{"operators.coreos.com", "ClusterServiceVersion", kNs, name};
}

records::EventRecord Changed(const Json& csv) {
  records::EventRecord e;
  e.type = records::EventType::kModified;
  e.object.group = "operators.coreos.com";
  e.object.version = "v1alpha1";
  e.object.kind = "ClusterServiceVersion";
  e.object.ns = kNs;
  e.object.name = engine::GetString(csv, {"metadata", "name"});
  e.body = engine::Dump(csv);
  return e;
}

std::vector<std::string> Deleted(const std::vector<ControllerWrite>& writes) {
  std::vector<std::string> out;
  for (const auto& w : writes) {
    EXPECT_EQ(w.verb, "delete");
    out.push_back(engine::GetString(w.object, {"metadata", "name"}));
  }
  return out;
}

// Two plans carried out at once (the four-domain soak, seed 6): neither saw
// the other's CSV when it started, so the replacement is judged when the
// newer CSV succeeds.
TEST(OlmStandIn, TheReplacedCsvGoesWhenTheNewerOneSucceeds) {
  Controller stand_in = OlmClusterStandIn(std::make_shared<OlmBundles>());
  ObjectStore objects;
  objects.Put(Key("op.v1.2.0"), Csv("op.v1.2.0", "op.v1.1.0", "Succeeded"));
  Json newer = Csv("op.v1.2.1", "op.v1.2.0", "Installing");
  objects.Put(Key("op.v1.2.1"), newer);
  EXPECT_TRUE(stand_in(Changed(newer), objects).empty()) << "not Succeeded yet";
  newer["status"] = {{"phase", "Succeeded"}};
  objects.Put(Key("op.v1.2.1"), newer);
  EXPECT_EQ(Deleted(stand_in(Changed(newer), objects)), std::vector<std::string>{"op.v1.2.0"});
}

// A plan carried out late installs a CSV that an installed one replaces: the
// late one goes.
TEST(OlmStandIn, ACsvThatAnInstalledOneReplacesGoesWhenItSucceeds) {
  Controller stand_in = OlmClusterStandIn(std::make_shared<OlmBundles>());
  ObjectStore objects;
  objects.Put(Key("op.v1.2.1"), Csv("op.v1.2.1", "op.v1.2.0", "Succeeded"));
  Json late = Csv("op.v1.2.0", "op.v1.1.0", "Succeeded");
  objects.Put(Key("op.v1.2.0"), late);
  EXPECT_EQ(Deleted(stand_in(Changed(late), objects)), std::vector<std::string>{"op.v1.2.0"});
}

TEST(OlmStandIn, NothingGoesWithoutAReplacement) {
  Controller stand_in = OlmClusterStandIn(std::make_shared<OlmBundles>());
  ObjectStore objects;
  Json only = Csv("op.v1.2.1", "op.v1.2.0", "Succeeded");  // v1.2.0 is not there
  objects.Put(Key("op.v1.2.1"), only);
  objects.Put(Key("other.v1"), Csv("other.v1", "", "Succeeded"));
  EXPECT_TRUE(stand_in(Changed(only), objects).empty());
}

// OLM's olm operator, until recon has it (issue 50): a CSV created without a
// phase gets the Operator-API label of its package (users delete an
// operator's CSVs by it), then Succeeded.
TEST(OlmStandIn, ACsvTheAgentCreatedIsLabelledWithItsOperatorThenSucceeds) {
  Controller stand_in = OlmClusterStandIn(std::make_shared<OlmBundles>());
  ObjectStore objects;
  Json created = Csv("op.v1.2.1", "op.v1.2.0", "");
  created["metadata"]["annotations"]["operatorframework.io/properties"] =
      R"({"properties":[{"type":"olm.package","value":{"packageName":"op","version":"1.2.1"}}]})";
  objects.Put(Key("op.v1.2.1"), created);
  auto writes = stand_in(Changed(created), objects);
  ASSERT_EQ(writes.size(), 2u);
  EXPECT_EQ(writes[0].verb, "update");
  EXPECT_TRUE(engine::Path(writes[0].object, {"metadata", "labels"}).contains("operators.coreos.com/op.olm-soak-0"));
  EXPECT_EQ(writes[1].verb, "updateStatus");
  EXPECT_EQ(engine::GetString(writes[1].object, {"status", "phase"}), "Succeeded");
  EXPECT_LT(writes[0].delay_ns, writes[1].delay_ns);
}

// Kubernetes' garbage collector: a Subscription deleted, the plans it alone
// owned go; one another live Subscription owns stays.
TEST(OlmStandIn, ADeletedSubscriptionsPlansAreCollected) {
  Controller stand_in = OlmClusterStandIn(std::make_shared<OlmBundles>());
  ObjectStore objects;
  auto plan = [&](const std::string& name, const std::vector<std::pair<std::string, std::string>>& owners) {
    Json ip = {{"apiVersion", "operators.coreos.com/v1alpha1"},
               {"kind", "InstallPlan"},
               {"metadata", {{"name", name}, {"namespace", kNs}, {"ownerReferences", Json::array()}}}};
    for (const auto& [sub, uid] : owners)
      ip["metadata"]["ownerReferences"].push_back({{"kind", "Subscription"}, {"name", sub}, {"uid", uid}});
    objects.Put(ObjectKey{"operators.coreos.com", "InstallPlan", kNs, name}, ip);
  };
  objects.Put(ObjectKey{"operators.coreos.com", "Subscription", kNs, "b"},
              Json{{"metadata", {{"name", "b"}, {"namespace", kNs}, {"uid", "uid-b"}}}});
  // "a" was deleted and created again: its new uid does not own the old plan.
  objects.Put(ObjectKey{"operators.coreos.com", "Subscription", kNs, "a"},
              Json{{"metadata", {{"name", "a"}, {"namespace", kNs}, {"uid", "uid-a2"}}}});
  plan("install-a", {{"a", "uid-a1"}});
  plan("install-ab", {{"a", "uid-a1"}, {"b", "uid-b"}});
  plan("install-b", {{"b", "uid-b"}});
  records::EventRecord e;
  e.type = records::EventType::kDeleted;
  e.object.group = "operators.coreos.com";
  e.object.kind = "Subscription";
  e.object.ns = kNs;
  e.object.name = "a";
  EXPECT_EQ(Deleted(stand_in(e, objects)), std::vector<std::string>{"install-a"});
}

// Kubernetes' garbage collector, with recon as the olm operator: an
// OperatorCondition created after its CSV's delete goes at once; one whose
// CSV lives stays.
TEST(OlmStandIn, AnObjectCreatedAfterItsOwnersDeleteIsCollected) {
  Controller stand_in = OlmClusterStandIn(std::make_shared<OlmBundles>(), {.olm_operator = false});
  ObjectStore objects;
  objects.Put(Key("live.v1"),
              Json{{"metadata", {{"name", "live.v1"}, {"namespace", kNs}, {"uid", "uid-live"}}}});
  auto added = [&](const std::string& name, const std::string& owner_uid) {
    Json oc = {{"apiVersion", "operators.coreos.com/v2"},
               {"kind", "OperatorCondition"},
               {"metadata",
                {{"name", name},
                 {"namespace", kNs},
                 {"ownerReferences",
                  Json::array({{{"kind", "ClusterServiceVersion"}, {"name", name}, {"uid", owner_uid}}})}}}};
    records::EventRecord e;
    e.type = records::EventType::kAdded;
    e.object.group = "operators.coreos.com";
    e.object.kind = "OperatorCondition";
    e.object.ns = kNs;
    e.object.name = name;
    e.body = engine::Dump(oc);
    return stand_in(e, objects);
  };
  EXPECT_EQ(Deleted(added("gone.v1", "uid-gone")), std::vector<std::string>{"gone.v1"});
  EXPECT_TRUE(added("live.v1", "uid-live").empty());
}

// Kubernetes' garbage collector, a CSV deleted: a ServiceAccount it owns
// alone goes; one the CSV replacing it owns too loses only the reference.
TEST(OlmStandIn, ADeletedCsvsDependentsGoOrLoseTheirReference) {
  Controller stand_in = OlmClusterStandIn(std::make_shared<OlmBundles>(), {.olm_operator = false});
  ObjectStore objects;
  objects.Put(Key("op.v2"), Json{{"metadata", {{"name", "op.v2"}, {"namespace", kNs}, {"uid", "uid-v2"}}}});
  auto sa = [&](const std::string& name, const std::vector<std::string>& owner_uids) {
    Json refs = Json::array();
    for (const std::string& u : owner_uids) refs.push_back({{"kind", "ClusterServiceVersion"}, {"uid", u}});
    objects.Put(ObjectKey{"", "ServiceAccount", kNs, name},
                Json{{"apiVersion", "v1"},
                     {"kind", "ServiceAccount"},
                     {"metadata", {{"name", name}, {"namespace", kNs}, {"ownerReferences", refs}}}});
  };
  sa("alone", {"uid-v1"});
  sa("shared", {"uid-v1", "uid-v2"});
  sa("other", {"uid-v2"});
  records::EventRecord e =
      Changed(Json{{"apiVersion", "operators.coreos.com/v1alpha1"},
                   {"kind", "ClusterServiceVersion"},
                   {"metadata", {{"name", "op.v1"}, {"namespace", kNs}, {"uid", "uid-v1"}}}});
  e.type = records::EventType::kDeleted;
  std::vector<ControllerWrite> writes = stand_in(e, objects);
  ASSERT_EQ(writes.size(), 2u);
  EXPECT_EQ(writes[0].verb, "delete");
  EXPECT_EQ(engine::GetString(writes[0].object, {"metadata", "name"}), "alone");
  EXPECT_EQ(writes[1].verb, "update");
  EXPECT_EQ(engine::GetString(writes[1].object, {"metadata", "name"}), "shared");
  EXPECT_EQ(writes[1].drop_owners, std::vector<std::string>{"uid-v1"});
}

}  // namespace
}  // namespace recon::sim
