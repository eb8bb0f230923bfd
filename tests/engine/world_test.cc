// World's hash index must agree with its ordered maps after every kind of
// change (insert, in-place update, delete, re-add, snapshot PutObject, Clear).
#include "engine/world.h"

#include <gtest/gtest.h>

#include <string>

namespace recon::engine {
namespace {

Event ObjectEvent(records::EventType type, std::string_view kind, std::string_view ns, std::string_view name,
                  std::string_view body, uint64_t seq) {
  Event e;
  e.type = type;
  e.seq = seq;
  e.group = "g";
  e.version = "v1";
  e.kind = kind;
  e.ns = ns;
  e.name = name;
  e.body = body;
  return e;
}

TEST(WorldTest, GetFollowsUpsertsDeletesAndReadds) {
  World w;
  w.Apply(ObjectEvent(records::EventType::kAdded, "A", "ns1", "x", R"({"v":1})", 1));
  w.Apply(ObjectEvent(records::EventType::kAdded, "A", "ns1", "y", R"({"v":2})", 2));
  w.Apply(ObjectEvent(records::EventType::kAdded, "B", "ns1", "x", R"({"v":3})", 3));
  ASSERT_NE(w.Get("g", "A", "ns1", "x"), nullptr);
  EXPECT_EQ(w.Get("g", "A", "ns1", "x")->body(), R"({"v":1})");
  EXPECT_EQ(w.Get("g", "B", "ns1", "x")->body(), R"({"v":3})");
  EXPECT_EQ(w.Get("g", "A", "ns2", "x"), nullptr);
  EXPECT_EQ(w.Get("h", "A", "ns1", "x"), nullptr);
  EXPECT_EQ(w.ObjectCount(), 3u);

  // Modified in place: same object, new body and seq.
  const Object* before = w.Get("g", "A", "ns1", "x");
  w.Apply(ObjectEvent(records::EventType::kModified, "A", "ns1", "x", R"({"v":10})", 4));
  EXPECT_EQ(w.Get("g", "A", "ns1", "x"), before);
  EXPECT_EQ(before->body(), R"({"v":10})");
  EXPECT_EQ(before->seq(), 4u);
  EXPECT_EQ(w.ObjectCount(), 3u);

  // Deleted, then the last of its kind goes: both indexes forget it.
  w.Apply(ObjectEvent(records::EventType::kDeleted, "B", "ns1", "x", "", 5));
  EXPECT_EQ(w.Get("g", "B", "ns1", "x"), nullptr);
  EXPECT_TRUE(w.List("g", "B").empty());
  EXPECT_EQ(w.ObjectCount(), 2u);
  w.Apply(ObjectEvent(records::EventType::kDeleted, "B", "ns1", "x", "", 6));  // unknown: no-op
  EXPECT_EQ(w.ObjectCount(), 2u);

  // Re-added after a delete.
  w.Apply(ObjectEvent(records::EventType::kAdded, "B", "ns1", "x", R"({"v":4})", 7));
  ASSERT_NE(w.Get("g", "B", "ns1", "x"), nullptr);
  EXPECT_EQ(w.Get("g", "B", "ns1", "x")->body(), R"({"v":4})");
  ASSERT_EQ(w.ListIn("g", "A", "ns1").size(), 2u);
  EXPECT_EQ(w.ListIn("g", "A", "ns1")[0]->name(), "x");
  EXPECT_EQ(w.ObjectCount(), 3u);
}

TEST(WorldTest, PutObjectReplacesAndClearEmpties) {
  World w;
  w.PutObject(ObjectKey{"g", "A", "ns", "x"}, "v1", "one", 1, 0);
  w.PutObject(ObjectKey{"g", "A", "ns", "x"}, "v1", "two", 2, 0);  // replaces (a restore over a world)
  ASSERT_NE(w.Get("g", "A", "ns", "x"), nullptr);
  EXPECT_EQ(w.Get("g", "A", "ns", "x")->body(), "two");
  EXPECT_EQ(w.ObjectCount(), 1u);
  // The replaced object's key is no longer referenced: an update reaches the new one.
  w.Upsert("g", "A", "ns", "x", "v1", "three", 3, 0);
  EXPECT_EQ(w.Get("g", "A", "ns", "x")->body(), "three");
  EXPECT_EQ(w.List("g", "A").size(), 1u);
  w.Clear();
  EXPECT_EQ(w.Get("g", "A", "ns", "x"), nullptr);
  EXPECT_EQ(w.ObjectCount(), 0u);
  w.Upsert("g", "A", "ns", "x", "v1", "four", 4, 0);
  EXPECT_EQ(w.Get("g", "A", "ns", "x")->body(), "four");
}

TEST(WorldTest, ManyObjectsAllFound) {
  World w;
  for (int i = 0; i < 5000; ++i) {
    std::string ns = "ns" + std::to_string(i % 37), name = "o" + std::to_string(i);
    w.Upsert("g", i % 2 ? "A" : "B", ns, name, "v1", name, i + 1, 0);
  }
  EXPECT_EQ(w.ObjectCount(), 5000u);
  for (int i = 0; i < 5000; ++i) {
    std::string ns = "ns" + std::to_string(i % 37), name = "o" + std::to_string(i);
    const Object* o = w.Get("g", i % 2 ? "A" : "B", ns, name);
    ASSERT_NE(o, nullptr) << name;
    EXPECT_EQ(o->body(), name);
    EXPECT_EQ(w.Get("g", i % 2 ? "B" : "A", ns, name), nullptr) << name;
  }
}

}  // namespace
}  // namespace recon::engine
