// The simulated cluster's part of an OLM install that recon carries out as
// both of OLM's operators (adapters/sim/olm_stand_in.h): CSVs are left to
// recon; CRDs are Established, Deployments rolled out, and the garbage
// collector takes what a deleted owner leaves.
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

// OLM plays no part in the cluster (recon is both of its operators): a CSV
// created, installing or succeeded, replacing another or not, gets no
// write from the cluster.
TEST(OlmStandIn, NoCsvIsMovedByTheCluster) {
  Controller stand_in = OlmClusterStandIn(std::make_shared<OlmBundles>());
  ObjectStore objects;
  objects.Put(Key("op.v1.2.0"), Csv("op.v1.2.0", "op.v1.1.0", "Succeeded"));
  for (const char* phase : {"", "Pending", "Installing", "Succeeded"}) {
    Json newer = Csv("op.v1.2.1", "op.v1.2.0", phase);
    newer["metadata"]["annotations"]["operatorframework.io/properties"] =
        R"({"properties":[{"type":"olm.package","value":{"packageName":"op","version":"1.2.1"}}]})";
    objects.Put(Key("op.v1.2.1"), newer);
    records::EventRecord e = Changed(newer);
    EXPECT_TRUE(stand_in(e, objects).empty()) << phase;
    e.type = records::EventType::kAdded;
    EXPECT_TRUE(stand_in(e, objects).empty()) << phase;
  }
}

records::EventRecord EventOf(records::EventType type, const std::string& group, const Json& o) {
  records::EventRecord e;
  e.type = type;
  e.object.group = group;
  e.object.kind = engine::GetString(o, {"kind"});
  e.object.ns = engine::GetString(o, {"metadata", "namespace"});
  e.object.name = engine::GetString(o, {"metadata", "name"});
  e.body = engine::Dump(o);
  return e;
}

// kube-apiserver's CRD controller: a new CRD is Established with its names
// accepted and its storage version stored; an Established one is left be.
TEST(OlmStandIn, ANewCrdIsEstablished) {
  Controller stand_in = OlmClusterStandIn(std::make_shared<OlmBundles>());
  ObjectStore objects;
  Json crd = {{"apiVersion", "apiextensions.k8s.io/v1"},
              {"kind", "CustomResourceDefinition"},
              {"metadata", {{"name", "widgets.example.com"}}},
              {"spec",
               {{"group", "example.com"},
                {"names", {{"kind", "Widget"}, {"plural", "widgets"}}},
                {"versions", Json::array({Json{{"name", "v1"}, {"served", true}, {"storage", false}},
                                          Json{{"name", "v2"}, {"served", true}, {"storage", true}}})}}}};
  auto writes = stand_in(EventOf(records::EventType::kAdded, "apiextensions.k8s.io", crd), objects);
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].verb, "updateStatus");
  const Json& status = writes[0].object["status"];
  EXPECT_EQ(status["acceptedNames"], crd["spec"]["names"]);
  EXPECT_EQ(status["storedVersions"], Json::array({"v2"}));
  bool established = false;
  for (const Json& c : status["conditions"])
    established |= c["type"] == "Established" && c["status"] == "True";
  EXPECT_TRUE(established);
  EXPECT_TRUE(
      stand_in(EventOf(records::EventType::kModified, "apiextensions.k8s.io", writes[0].object), objects)
          .empty());
}

// kube-controller-manager and a kubelet: a Deployment whose generation is
// not observed yet rolls out (replicas updated and Available); an observed
// one is left be.
TEST(OlmStandIn, ADeploymentRollsOutOncePerGeneration) {
  Controller stand_in = OlmClusterStandIn(std::make_shared<OlmBundles>());
  ObjectStore objects;
  Json d = {{"apiVersion", "apps/v1"},
            {"kind", "Deployment"},
            {"metadata", {{"name", "op-controller-manager"}, {"namespace", kNs}, {"generation", 2}}},
            {"spec", {{"replicas", 3}}}};
  auto writes = stand_in(EventOf(records::EventType::kModified, "apps", d), objects);
  ASSERT_EQ(writes.size(), 1u);
  const Json& status = writes[0].object["status"];
  EXPECT_EQ(status["observedGeneration"], 2);
  EXPECT_EQ(status["updatedReplicas"], 3);
  EXPECT_EQ(status["availableReplicas"], 3);
  EXPECT_TRUE(stand_in(EventOf(records::EventType::kModified, "apps", writes[0].object), objects).empty());
}

// Kubernetes' garbage collector: a Subscription deleted, the plans it alone
// owned go; one another live Subscription owns stays.
// The Added event of an operators.coreos.com object of the test namespace.
records::EventRecord AddedEvent(const std::string& kind, const std::string& name, const Json& body) {
  records::EventRecord e;
  e.type = records::EventType::kAdded;
  e.object.group = "operators.coreos.com";
  e.object.kind = kind;
  e.object.ns = kNs;
  e.object.name = name;
  e.body = engine::Dump(body);
  return e;
}

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
  // A plan that comes after the delete, naming the old uid, goes at once;
  // one of the live subscription stays.
  auto added = [&](const std::string& name) {
    return stand_in(AddedEvent("InstallPlan", name,
                               *objects.Get(ObjectKey{"operators.coreos.com", "InstallPlan", kNs, name})),
                    objects);
  };
  plan("install-late", {{"a", "uid-a1"}});
  EXPECT_EQ(Deleted(added("install-late")), std::vector<std::string>{"install-late"});
  EXPECT_TRUE(added("install-b").empty());
}

// Kubernetes' garbage collector: an
// OperatorCondition created after its CSV's delete goes at once; one whose
// CSV lives stays.
TEST(OlmStandIn, AnObjectCreatedAfterItsOwnersDeleteIsCollected) {
  Controller stand_in = OlmClusterStandIn(std::make_shared<OlmBundles>());
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
    return stand_in(AddedEvent("OperatorCondition", name, oc), objects);
  };
  EXPECT_EQ(Deleted(added("gone.v1", "uid-gone")), std::vector<std::string>{"gone.v1"});
  EXPECT_TRUE(added("live.v1", "uid-live").empty());
}

// Kubernetes' garbage collector, a CSV deleted: a ServiceAccount it owns
// alone goes; one the CSV replacing it owns too loses only the reference.
TEST(OlmStandIn, ADeletedCsvsDependentsGoOrLoseTheirReference) {
  Controller stand_in = OlmClusterStandIn(std::make_shared<OlmBundles>());
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
