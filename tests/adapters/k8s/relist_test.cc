#include "adapters/k8s/relist.h"

#include <gtest/gtest.h>

#include "engine/resource.h"

namespace recon::k8s {
namespace {

ListedObject Obj(const std::string& ns, const std::string& name, const std::string& rv) {
  std::string body = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"namespace\":\"" + ns +
                     "\",\"name\":\"" + name + "\",\"resourceVersion\":\"" + rv + "\"}}";
  auto id = ObjectIdOf(body);
  EXPECT_TRUE(id.ok());
  return {*id, body};
}

TEST(Relist, VanishedDeletedChangedModifiedUnchangedNothing) {
  ObjectCache cache;
  DiffRelist(cache, {Obj("a", "keep", "1"), Obj("a", "change", "2"), Obj("b", "gone", "3")}, 0);
  auto ev = DiffRelist(cache, {Obj("a", "keep", "1"), Obj("a", "change", "7"), Obj("c", "new", "8")}, 99);
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0].type, records::EventType::kModified);
  EXPECT_EQ(ev[0].object.name, "change");
  EXPECT_EQ(ev[0].object.resource_version, "7");
  EXPECT_EQ(ev[1].type, records::EventType::kAdded);
  EXPECT_EQ(ev[1].object.name, "new");
  EXPECT_EQ(ev[1].time_ns, 99);
  EXPECT_EQ(ev[2].type, records::EventType::kDeleted);  // vanished objects last
  EXPECT_EQ(ev[2].object.name, "gone");
  EXPECT_NE(ev[2].body.find("\"resourceVersion\":\"3\""), std::string::npos);  // the last known body
  EXPECT_EQ(cache.size(), 3u);
  // The same list again: nothing.
  EXPECT_TRUE(
      DiffRelist(cache, {Obj("a", "keep", "1"), Obj("a", "change", "7"), Obj("c", "new", "8")}, 0).empty());
  // Everything gone.
  EXPECT_EQ(DiffRelist(cache, {}, 0).size(), 3u);
  EXPECT_TRUE(cache.empty());
}

// A CSV replaced during a watch gap: the successor (sorting after) is seen
// before its predecessor's deletion, so nothing re-plans the old one.
TEST(Relist, ReplacementIsSeenBeforeTheDeletion) {
  ObjectCache cache;
  DiffRelist(cache, {Obj("ns", "op.v0.17.0", "1"), Obj("ns", "z-other", "2")}, 0);
  auto ev = DiffRelist(cache, {Obj("ns", "op.v0.17.1", "5"), Obj("ns", "z-other", "6")}, 0);
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0].type, records::EventType::kAdded);
  EXPECT_EQ(ev[0].object.name, "op.v0.17.1");
  EXPECT_EQ(ev[1].type, records::EventType::kModified);
  EXPECT_EQ(ev[1].object.name, "z-other");
  EXPECT_EQ(ev[2].type, records::EventType::kDeleted);
  EXPECT_EQ(ev[2].object.name, "op.v0.17.0");
}

TEST(Relist, UnchangedObjectsAreHandedOverOnlyWhenAsked) {
  ObjectCache cache;
  DiffRelist(cache, {Obj("a", "keep", "1"), Obj("a", "change", "2")}, 0);
  std::vector<records::EventRecord> unchanged;
  auto listed = Obj("a", "keep", "1");
  listed.body += " ";  // the body as just listed, not the cached one
  auto ev = DiffRelist(cache, {listed, Obj("a", "change", "3"), Obj("b", "new", "4")}, 5, &unchanged);
  ASSERT_EQ(ev.size(), 2u);
  ASSERT_EQ(unchanged.size(), 1u);
  EXPECT_EQ(unchanged[0].object.name, "keep");
  EXPECT_EQ(unchanged[0].type, records::EventType::kModified);
  EXPECT_EQ(unchanged[0].body, listed.body);
  EXPECT_EQ(unchanged[0].time_ns, 5);
}

TEST(Relist, WatchEventsAreNotDeliveredTwice) {
  ObjectCache cache;
  EXPECT_TRUE(ApplyToCache(cache, records::EventType::kAdded, Obj("a", "x", "1")));
  EXPECT_FALSE(ApplyToCache(cache, records::EventType::kAdded, Obj("a", "x", "1")));
  EXPECT_FALSE(ApplyToCache(cache, records::EventType::kModified, Obj("a", "x", "1")));
  EXPECT_TRUE(ApplyToCache(cache, records::EventType::kModified, Obj("a", "x", "2")));
  EXPECT_TRUE(ApplyToCache(cache, records::EventType::kDeleted, Obj("a", "x", "2")));
  EXPECT_FALSE(ApplyToCache(cache, records::EventType::kDeleted, Obj("a", "x", "2")));
}

TEST(Objects, ListPageAddsKindToBuiltInItems) {
  engine::ResourceType cm{"", "v1", "ConfigMap", "configmaps", true};
  auto page = ParseListPage(
      R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"42","continue":"abc"},)"
      R"("items":[{"metadata":{"name":"a","namespace":"n","resourceVersion":"40"},"data":{"k":"v"}},)"
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","namespace":"n","resourceVersion":"41"}}]})",
      cm);
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(page->resource_version, "42");
  EXPECT_EQ(page->continue_token, "abc");
  ASSERT_EQ(page->items.size(), 2u);
  EXPECT_EQ(
      page->items[0].body,
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"n","resourceVersion":"40"},"data":{"k":"v"}})");
  EXPECT_EQ(page->items[0].id.kind, "ConfigMap");
  EXPECT_EQ(page->items[0].id.resource_version, "40");
  EXPECT_EQ(page->items[1].id.name, "b");
  auto empty = ParseListPage(R"({"metadata":{"resourceVersion":"7"},"items":null})", cm);
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(empty->items.empty());
  auto bad = ParseListPage(R"({"metadata":{},"items":[{"metadata":{}}]})", cm);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("items[0]"), std::string::npos) << bad.status();
}

// A real server's list of Deployments: items without apiVersion/kind whose
// ownerReferences and managedFields carry an "apiVersion" of their own
// (issue 40: the substring test took the item for complete and refused it).
TEST(Objects, ListPageAddsKindWhenNestedFieldsNameAnApiVersion) {
  engine::ResourceType deploy{"apps", "v1", "Deployment", "deployments", true};
  auto page = ParseListPage(
      R"({"kind":"DeploymentList","apiVersion":"apps/v1","metadata":{"resourceVersion":"9"},"items":[)"
      R"({"metadata":{"name":"d","namespace":"n","resourceVersion":"8","ownerReferences":[{"apiVersion":)"
      R"("tools.opdev.io/v1alpha1","kind":"DisconnectedFriendlyApp","name":"app","uid":"u1"}],)"
      R"("managedFields":[{"manager":"m","operation":"Update","apiVersion":"apps/v1"}]},"spec":{}},)"
      R"({"kind":"Deployment","metadata":{"name":"e","namespace":"n","resourceVersion":"7"}}]})",
      deploy);
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->items.size(), 2u);
  EXPECT_EQ(page->items[0].id.group, "apps");
  EXPECT_EQ(page->items[0].id.kind, "Deployment");
  EXPECT_EQ(page->items[0].body.substr(0, 46), R"({"apiVersion":"apps/v1","kind":"Deployment","m)");
  // Only what is missing is added: one "kind" in the body, not two.
  EXPECT_EQ(page->items[1].body,
            R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"e","namespace":"n","resourceVersion":"7"}})");
  EXPECT_EQ(page->items[1].id.version, "v1");
}

TEST(Objects, StatusError) {
  EXPECT_EQ(
      StatusError(
          409,
          R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"the object has been modified","reason":"Conflict","code":409})"),
      "Conflict: the object has been modified");
  EXPECT_EQ(StatusError(502, "bad gateway"), "HTTP 502: bad gateway");
  EXPECT_EQ(StatusCode(R"({"kind":"Status","code":410,"reason":"Expired"})"), 410);
  EXPECT_EQ(StatusCode("{}"), 0);
}

}  // namespace
}  // namespace recon::k8s
