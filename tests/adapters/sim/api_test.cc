// Kubernetes API semantics of the simulated cluster.
#include "adapters/sim/api.h"

#include <gtest/gtest.h>

#include "adapters/sim/azure.h"

namespace recon::sim {
namespace {

using engine::Json;
using records::EventType;

constexpr int64_t kT0 = 1'800'000'000'000'000'000;

Json Config(std::string_view mgmt) {
  return Json{{"apiVersion", "samples.operator.openshift.io/v1"},
              {"kind", "Config"},
              {"metadata", {{"name", "cluster"}}},
              {"spec", {{"managementState", mgmt}}}};
}

class ApiTest : public ::testing::Test {
 protected:
  const Json& Stored() {
    return *objects_.Get(ObjectKey{"samples.operator.openshift.io", "Config", "", "cluster"});
  }
  ObjectStore objects_{7};
  Api api_{objects_};
};

TEST_F(ApiTest, CreateFillsServerFieldsAndEmitsAdded) {
  ApiResult r = api_.Create(Config("Managed"), kT0);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.status, 201);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].type, EventType::kAdded);
  EXPECT_EQ(r.events[0].object.kind, "Config");
  EXPECT_EQ(r.events[0].object.group, "samples.operator.openshift.io");
  const Json& o = Stored();
  EXPECT_EQ(engine::GetString(o, {"metadata", "resourceVersion"}), "1");
  EXPECT_EQ(engine::Path(o, {"metadata", "generation"}), 1);
  EXPECT_EQ(engine::GetString(o, {"metadata", "uid"}).size(), 36u);
  EXPECT_EQ(engine::GetString(o, {"metadata", "creationTimestamp"}), "2027-01-15T08:00:00Z");
  // The watch event carries the whole object.
  auto body = engine::ParseJson(r.events[0].body);
  ASSERT_TRUE(body.ok());
  EXPECT_EQ(*body, o);
}

TEST_F(ApiTest, CreateOfExistingIs409AlreadyExists) {
  ASSERT_TRUE(api_.Create(Config("Managed"), kT0).ok);
  ApiResult r = api_.Create(Config("Removed"), kT0);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.status, 409);
  EXPECT_TRUE(r.error.starts_with("AlreadyExists")) << r.error;
  EXPECT_TRUE(r.events.empty());
}

TEST_F(ApiTest, CreateDropsStatusAndClientSetServerFields) {
  Json c = Config("Managed");
  c["status"] = Json{{"x", 1}};
  c["metadata"]["uid"] = "mine";
  ASSERT_TRUE(api_.Create(c, kT0).ok);
  EXPECT_FALSE(Stored().contains("status"));
  EXPECT_NE(engine::GetString(Stored(), {"metadata", "uid"}), "mine");
}

TEST_F(ApiTest, MissingIs404ForEveryVerb) {
  Json c = Config("Managed");
  EXPECT_EQ(api_.Update(c, kT0).status, 404);
  EXPECT_EQ(api_.UpdateStatus(c, kT0).status, 404);
  EXPECT_EQ(api_.Delete(c, kT0).status, 404);
  EXPECT_TRUE(api_.Update(c, kT0).error.starts_with("NotFound"));
}

TEST_F(ApiTest, StaleResourceVersionIs409ConflictAndUnconditionalUpdateWins) {
  ASSERT_TRUE(api_.Create(Config("Managed"), kT0).ok);
  Json stale = Stored();
  Json edit = Stored();
  edit["spec"]["managementState"] = "Unmanaged";
  ASSERT_TRUE(api_.Update(edit, kT0).ok);
  stale["spec"]["managementState"] = "Removed";
  ApiResult r = api_.Update(stale, kT0);
  EXPECT_EQ(r.status, 409);
  EXPECT_TRUE(r.error.starts_with("Conflict")) << r.error;
  EXPECT_EQ(engine::GetString(Stored(), {"spec", "managementState"}), "Unmanaged");
  // A custom resource cannot be updated unconditionally (a real server's
  // customresource strategy: AllowUnconditionalUpdate is false).
  stale["metadata"].erase("resourceVersion");
  ApiResult u = api_.Update(stale, kT0);
  EXPECT_EQ(u.status, 422);
  EXPECT_NE(u.error.find("metadata.resourceVersion: Invalid value: 0x0: must be specified for an update"),
            std::string::npos)
      << u.error;
  EXPECT_EQ(engine::GetString(Stored(), {"spec", "managementState"}), "Unmanaged");
}

TEST_F(ApiTest, GenerationBumpsOnSpecChangeOnly) {
  ASSERT_TRUE(api_.Create(Config("Managed"), kT0).ok);
  Json o = Stored();
  o["metadata"]["labels"] = Json{{"a", "b"}};
  ApiResult r = api_.Update(o, kT0);
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].type, EventType::kModified);
  EXPECT_EQ(engine::Path(Stored(), {"metadata", "generation"}), 1);
  EXPECT_EQ(engine::GetString(Stored(), {"metadata", "labels", "a"}), "b");
  o = Stored();
  o["spec"]["managementState"] = "Removed";
  ASSERT_TRUE(api_.Update(o, kT0).ok);
  EXPECT_EQ(engine::Path(Stored(), {"metadata", "generation"}), 2);
  EXPECT_EQ(engine::GetString(Stored(), {"metadata", "resourceVersion"}), "3");
}

TEST_F(ApiTest, NoOpUpdateChangesNothingAndEmitsNothing) {
  ASSERT_TRUE(api_.Create(Config("Managed"), kT0).ok);
  ApiResult r = api_.Update(Stored(), kT0);
  EXPECT_TRUE(r.ok);
  EXPECT_TRUE(r.events.empty());
  EXPECT_EQ(objects_.resource_version(), 1u);
}

TEST_F(ApiTest, StatusSubresource) {
  ASSERT_TRUE(api_.Create(Config("Managed"), kT0).ok);
  Json s = Config("Removed");  // spec in an updateStatus body is ignored
  s["metadata"]["resourceVersion"] = Stored()["metadata"]["resourceVersion"];
  s["status"] = Json{{"conditions", Json::array({{{"type", "Available"}, {"status", "True"}}})}};
  ApiResult r = api_.UpdateStatus(s, kT0);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(engine::GetString(Stored(), {"spec", "managementState"}), "Managed");
  EXPECT_EQ(engine::Path(Stored(), {"status"})["conditions"][0]["type"], "Available");
  EXPECT_EQ(engine::Path(Stored(), {"metadata", "generation"}), 1);
  // An update leaves status alone, whatever its body says.
  Json u = Stored();
  u["status"] = Json::object();
  u["spec"]["managementState"] = "Unmanaged";
  ASSERT_TRUE(api_.Update(u, kT0).ok);
  EXPECT_EQ(engine::Path(Stored(), {"status"})["conditions"][0]["type"], "Available");
  EXPECT_EQ(engine::GetString(Stored(), {"spec", "managementState"}), "Unmanaged");
}

TEST_F(ApiTest, FinalizersHoldDeletionUntilTheLastIsRemoved) {
  Json c = Config("Managed");
  c["metadata"]["finalizers"] = Json::array({"samples.operator.openshift.io/finalizer", "other"});
  ASSERT_TRUE(api_.Create(c, kT0).ok);
  ApiResult d = api_.Delete(Stored(), kT0 + 5'000'000'000);
  ASSERT_TRUE(d.ok);
  ASSERT_EQ(d.events.size(), 1u);
  EXPECT_EQ(d.events[0].type, EventType::kModified);
  EXPECT_EQ(engine::GetString(Stored(), {"metadata", "deletionTimestamp"}), "2027-01-15T08:00:05Z");
  EXPECT_EQ(engine::Path(Stored(), {"metadata", "generation"}), 2);
  EXPECT_TRUE(api_.Delete(Stored(), kT0).events.empty());  // already terminating

  Json o = Stored();
  o["metadata"]["finalizers"] = Json::array({"other"});
  ApiResult one = api_.Update(o, kT0);
  ASSERT_EQ(one.events.size(), 1u);
  EXPECT_EQ(one.events[0].type, EventType::kModified);
  o = Stored();
  o["metadata"]["finalizers"] = Json::array();
  ApiResult last = api_.Update(o, kT0);
  ASSERT_EQ(last.events.size(), 1u);
  EXPECT_EQ(last.events[0].type, EventType::kDeleted);
  EXPECT_EQ(objects_.Get(ObjectKey{"samples.operator.openshift.io", "Config", "", "cluster"}), nullptr);
  EXPECT_TRUE(api_.Create(Config("Managed"), kT0).ok);  // the name is free again
}

TEST_F(ApiTest, DeleteWithoutFinalizersEmitsDeletedWithTheLastState) {
  ASSERT_TRUE(api_.Create(Config("Managed"), kT0).ok);
  ApiResult d = api_.Delete(Config("Managed"), kT0);
  ASSERT_EQ(d.events.size(), 1u);
  EXPECT_EQ(d.events[0].type, EventType::kDeleted);
  EXPECT_EQ(d.events[0].object.resource_version, "2");
  EXPECT_NE(d.events[0].body.find("Managed"), std::string::npos);
}

TEST_F(ApiTest, NamespacesSeparateObjects) {
  Json a = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "x"}, {"namespace", "a"}}}};
  Json b = a;
  b["metadata"]["namespace"] = "b";
  EXPECT_TRUE(api_.Create(a, kT0).ok);
  EXPECT_TRUE(api_.Create(b, kT0).ok);
  EXPECT_EQ(objects_.objects().size(), 2u);
}

TEST_F(ApiTest, AzurePutNeedsAnExistingResource) {
  std::string id =
      "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/master";
  Json subnet = {{"apiVersion", "network.azure.com/v1"},
                 {"kind", "Subnet"},
                 {"metadata", {{"name", id}}},
                 {"spec", {{"networkSecurityGroup", {{"id", "nsg-1"}}}}}};
  ApiResult missing = api_.Update(subnet, kT0);
  EXPECT_EQ(missing.status, 404);
  ASSERT_TRUE(api_.Create(subnet, kT0).ok);
  subnet["spec"]["networkSecurityGroup"]["id"] = "nsg-2";
  ApiResult put = api_.Update(subnet, kT0);
  ASSERT_TRUE(put.ok);
  ASSERT_EQ(put.events.size(), 1u);
  EXPECT_EQ(put.events[0].type, EventType::kModified);
  EXPECT_EQ(put.events[0].object.name, id);
  const Json* stored = objects_.Get(ObjectKey{"network.azure.com", "Subnet", "", id});
  ASSERT_NE(stored, nullptr);
  EXPECT_FALSE((*stored)["metadata"].contains("uid"));  // ARM resources carry no Kubernetes metadata
  EXPECT_TRUE(api_.Update(subnet, kT0).events.empty());
}

TEST(ObjectStoreTest, UidsAreDeterministicPerSeed) {
  ObjectStore a(3), b(3), c(4);
  std::string ua = a.NextUid();
  EXPECT_EQ(ua, b.NextUid());
  EXPECT_NE(ua, c.NextUid());
  EXPECT_NE(ua, a.NextUid());
}

}  // namespace
}  // namespace recon::sim
