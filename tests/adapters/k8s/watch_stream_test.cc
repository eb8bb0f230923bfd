#include "adapters/k8s/watch_stream.h"

#include <gtest/gtest.h>

#include <string>

namespace recon::k8s {
namespace {

const std::string kStream =
    "{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
    "\"a\","
    "\"resourceVersion\":\"5\"},\"data\":{\"k\":\"line\\nbreak {\"}}}\n"
    "{\"type\":\"MODIFIED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
    "\"a\","
    "\"resourceVersion\":\"6\"}}}\r\n"
    "\n"
    "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{"
    "\"resourceVersion\":\"9\"}}}\n"
    "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
    "\"reason\":\"Expired\",\"code\":410}}\n";

void ExpectAll(const std::vector<WatchEvent>& events) {
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].type, "ADDED");
  EXPECT_EQ(
      events[0].object,
      "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"5\"},"
      "\"data\":{\"k\":\"line\\nbreak {\"}}");
  EXPECT_EQ(events[1].type, "MODIFIED");
  EXPECT_EQ(events[2].type, "BOOKMARK");
  EXPECT_EQ(events[3].type, "ERROR");
  EXPECT_NE(events[3].object.find("\"code\":410"), std::string::npos);
}

TEST(WatchStream, WholeStreamInOneChunk) {
  WatchStreamParser p;
  auto ev = p.Feed(kStream);
  ASSERT_TRUE(ev.ok()) << ev.status();
  ExpectAll(*ev);
  EXPECT_EQ(p.buffered(), 0u);
}

TEST(WatchStream, SplitAtEveryByteBoundary) {
  for (size_t cut = 0; cut <= kStream.size(); ++cut) {
    WatchStreamParser p;
    std::vector<WatchEvent> all;
    for (std::string_view part :
         {std::string_view(kStream).substr(0, cut), std::string_view(kStream).substr(cut)}) {
      auto ev = p.Feed(part);
      ASSERT_TRUE(ev.ok()) << "cut " << cut << ": " << ev.status();
      for (auto& e : *ev) all.push_back(e);
    }
    ExpectAll(all);
  }
}

TEST(WatchStream, OneByteAtATime) {
  WatchStreamParser p;
  std::vector<WatchEvent> all;
  for (char c : kStream) {
    auto ev = p.Feed(std::string_view(&c, 1));
    ASSERT_TRUE(ev.ok()) << ev.status();
    for (auto& e : *ev) all.push_back(e);
  }
  ExpectAll(all);
}

TEST(WatchStream, PartialLastLineIsHeldBack) {
  WatchStreamParser p;
  std::string two = kStream.substr(0, kStream.find('\n') + 1) + "{\"type\":\"MODIFIED\",\"obj";
  auto ev = p.Feed(two);
  ASSERT_TRUE(ev.ok());
  EXPECT_EQ(ev->size(), 1u);
  EXPECT_EQ(p.buffered(), 23u);  // {"type":"MODIFIED","obj
  ev = p.Feed("ect\":{\"apiVersion\":\"v1\",\"kind\":\"X\",\"metadata\":{\"name\":\"b\"}}}\n");
  ASSERT_TRUE(ev.ok()) << ev.status();
  ASSERT_EQ(ev->size(), 1u);
  EXPECT_EQ((*ev)[0].type, "MODIFIED");
}

TEST(WatchStream, HugeLine) {
  std::string big(3u << 20, 'x');
  std::string line =
      "{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{"
      "\"name\":\"big\"},\"data\":{\"k\":\"" +
      big + "\"}}}\n";
  WatchStreamParser p;
  std::vector<WatchEvent> all;
  for (size_t i = 0; i < line.size(); i += 65536) {
    auto ev = p.Feed(std::string_view(line).substr(i, 65536));
    ASSERT_TRUE(ev.ok());
    for (auto& e : *ev) all.push_back(e);
  }
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].object.size(), line.size() - 1 - std::string("{\"type\":\"ADDED\",\"object\":}").size());
}

TEST(WatchStream, LineOverTheLimitIsAnError) {
  WatchStreamParser p(100);
  auto ev = p.Feed(std::string(150, 'x'));
  ASSERT_FALSE(ev.ok());
  EXPECT_NE(std::string(ev.status().message()).find("exceeds 100 bytes"), std::string::npos);
}

TEST(WatchStream, MalformedLineIsAnErrorQuotingTheLine) {
  WatchStreamParser p;
  auto ev = p.Feed(
      "{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"A\",\"metadata\":{\"name\":\"a\"}}}\n"
      "{\"type\":\"MODIFIED\",\"object\":{broken\n");
  ASSERT_FALSE(ev.ok());
  std::string msg(ev.status().message());
  EXPECT_NE(msg.find("{\"type\":\"MODIFIED\",\"object\":{broken"), std::string::npos) << msg;
  // The parser stays failed: the caller restarts the watch.
  EXPECT_FALSE(p.Feed("{}\n").ok());
}

TEST(WatchStream, BadShapes) {
  EXPECT_FALSE(ParseWatchLine("[1,2]").ok());
  EXPECT_FALSE(ParseWatchLine("{\"type\":\"ADDED\"}").ok());
  EXPECT_FALSE(ParseWatchLine("{\"type\":\"ADDED\",\"object\":3}").ok());
  auto unknown = ParseWatchLine("{\"type\":\"SYNC\",\"object\":{}}");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(std::string(unknown.status().message()).find("unknown event type \"SYNC\""), std::string::npos);
  auto ok = ParseWatchLine("{ \"object\" : {\"a\": 1} , \"type\":\"DELETED\"}");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->object, "{\"a\": 1}");
}

}  // namespace
}  // namespace recon::k8s
