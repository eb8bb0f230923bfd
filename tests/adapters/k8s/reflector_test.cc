// One Reflector on the in-memory transport and a hand-moved clock: what it
// asks for (list pages, watches from the right resourceVersion), what it
// delivers, and when it tries again (the backoff, on the clock). No socket
// and no wait on the wall clock: the backoff is set far longer than the
// test lasts, so only the test's clock moves it.
#include "adapters/k8s/reflector.h"

#include <gtest/gtest.h>

#include <functional>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "adapters/http/fake_transport.h"
#include "adapters/http/io_loop.h"
#include "adapters/http/paced_client.h"
#include "runtime/time_source.h"

namespace recon::k8s {
namespace {

constexpr int64_t kS = 1'000'000'000;
constexpr int64_t kStart = 1000 * kS;
// The first retry waits [10 s, 20 s) (jitter [1, 2)): far beyond what a
// test lasts in real time.
constexpr int64_t kBackoff = 10 * kS;

using records::EventType;

std::string Cm(const std::string& name, const std::string& rv, const std::string& value = "v") {
  return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"namespace\":\"t\",\"name\":\"" +
         name + "\",\"resourceVersion\":\"" + rv + "\"},\"data\":{\"v\":\"" + value + "\"}}";
}

std::string List(const std::string& rv, const std::vector<std::string>& items, const std::string& next = "") {
  std::string s = "{\"kind\":\"ConfigMapList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"" +
                  rv + "\"" + (next.empty() ? "" : ",\"continue\":\"" + next + "\"") + "},\"items\":[";
  for (size_t i = 0; i < items.size(); ++i) s += (i ? "," : "") + items[i];
  return s + "]}";
}

std::string WatchLine(const std::string& type, const std::string& object) {
  return "{\"type\":\"" + type + "\",\"object\":" + object + "}\n";
}

class ReflectorTest : public ::testing::Test {
 public:  // for the shared checks below
  void SetUp() override {
    loop_.Start();
    OnLoop([&] {
      client_.emplace(loop_, transport_, http::PaceOptions{.qps = 0, .burst = 0});
      ReflectorOptions o;
      o.page_size = 2;
      o.min_watch_timeout_s = 30;
      o.backoff.initial_ns = kBackoff;
      o.backoff.max_ns = 1000 * kS;
      reflector_.emplace(loop_, *client_,
                         engine::ResourceType{"", "v1", "ConfigMap", "configmaps", true, false, {}}, o, rng_,
                         clock_, [this](std::vector<records::EventRecord> events) {
                           for (auto& e : events) delivered_.push_back(std::move(e));
                         });
      reflector_->SetFatal([this](const std::string& why) { fatal_ = why; });
    });
  }
  void TearDown() override {
    OnLoop([&] {
      reflector_->Stop();
      transport_.CancelAll();
      reflector_.reset();
      client_.reset();
    });
    loop_.Stop();
  }
  // Runs `fn` on the loop thread and waits for it.
  void OnLoop(const std::function<void()>& fn) {
    std::promise<void> done;
    loop_.Post([&] {
      fn();
      done.set_value();
    });
    done.get_future().wait();
  }
  void Answer(int status, std::string body = "") {
    OnLoop([&] {
      http::HttpResponse r;
      r.status = status;
      r.body = std::move(body);
      ASSERT_TRUE(transport_.AnswerNext(std::move(r)));
    });
  }
  void Stream(const std::string& bytes) {
    OnLoop([&] { ASSERT_TRUE(transport_.StreamNext(bytes)); });
  }
  void Move(int64_t ns) {
    clock_.Advance(ns);
    loop_.ClockMoved();
  }
  std::vector<std::string> Urls() {
    std::vector<std::string> out;
    OnLoop([&] {
      for (const auto& r : transport_.sent()) out.push_back(r.url);
    });
    return out;
  }
  std::string LastUrl() {
    auto u = Urls();
    return u.empty() ? "" : u.back();
  }
  // "Added cm0 5" per delivered event.
  std::vector<std::string> Delivered() {
    std::vector<std::string> out;
    OnLoop([&] {
      for (const auto& e : delivered_)
        out.push_back(std::string(records::EventTypeName(e.type)) + " " + e.object.name + " " +
                      e.object.resource_version);
    });
    return out;
  }
  // Starts, answers the first list with cm0 (rv 5) and cm1 (rv 6) at list rv 10.
  void Listed() {
    OnLoop([&] { reflector_->Start(); });
    Answer(200, List("10", {Cm("cm0", "5"), Cm("cm1", "6")}));
  }

  runtime::ManualTimeSource clock_{kStart};
  http::IoLoop loop_{clock_};
  http::FakeTransport transport_{[] {
    http::RestConfig c;
    c.server = "https://api.example:6443";
    return c;
  }()};
  Rng rng_{7};
  std::optional<http::PacedClient> client_;
  std::optional<Reflector> reflector_;
  std::vector<records::EventRecord> delivered_;  // loop thread only
  std::string fatal_;                           // loop thread only
};

const std::string kApi = "https://api.example:6443/api/v1/configmaps";

TEST_F(ReflectorTest, ListsInPagesThenWatchesFromTheListsVersion) {
  OnLoop([&] { reflector_->Start(); });
  EXPECT_EQ(LastUrl(), kApi + "?limit=2");
  Answer(200, List("9", {Cm("cm0", "5"), Cm("cm1", "6")}, "next/page"));
  EXPECT_EQ(LastUrl(), kApi + "?limit=2&continue=next%2Fpage");
  EXPECT_FALSE(reflector_->synced());
  Answer(200, List("10", {Cm("cm2", "7")}));
  EXPECT_TRUE(reflector_->synced());
  EXPECT_EQ(Delivered(), (std::vector<std::string>{"Added cm0 5", "Added cm1 6", "Added cm2 7"}));
  OnLoop([&] { EXPECT_EQ(delivered_[0].time_ns, kStart); });
  std::string watch = LastUrl();
  EXPECT_EQ(watch.rfind(kApi + "?watch=1&allowWatchBookmarks=true&resourceVersion=10&timeoutSeconds=", 0), 0u)
      << watch;
  int64_t timeout = std::stoll(watch.substr(watch.rfind('=') + 1));
  EXPECT_GE(timeout, 30);
  EXPECT_LT(timeout, 60);
  EXPECT_EQ(reflector_->resource_version(), "10");
  EXPECT_EQ(reflector_->stats().pages.load(), 2u);
}

TEST_F(ReflectorTest, WatchEventsAreDeliveredAndAnEndedWatchResumesFromTheLastVersion) {
  Listed();
  Move(3 * kS);
  Stream(WatchLine("MODIFIED", Cm("cm0", "11", "changed")) + WatchLine("ADDED", Cm("cm9", "12")));
  // A chunk may end mid-line: the rest comes with the next one.
  std::string del = WatchLine("DELETED", Cm("cm1", "13"));
  Stream(del.substr(0, 20));
  EXPECT_EQ(Delivered().size(), 4u);
  Stream(del.substr(20));
  // The same version again (a duplicate) is not delivered twice.
  Stream(WatchLine("MODIFIED", Cm("cm0", "11", "changed")));
  EXPECT_EQ(Delivered(), (std::vector<std::string>{"Added cm0 5", "Added cm1 6", "Modified cm0 11",
                                                   "Added cm9 12", "Deleted cm1 13"}));
  OnLoop([&] { EXPECT_EQ(delivered_[2].time_ns, kStart + 3 * kS); });
  // A bookmark moves the version on and delivers nothing.
  Stream(
      WatchLine("BOOKMARK", R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"20"}})"));
  EXPECT_EQ(reflector_->resource_version(), "20");
  EXPECT_EQ(Delivered().size(), 5u);
  // The server ends the watch (timeoutSeconds): watched again at once from 20, no list.
  size_t sent = Urls().size();
  Answer(200);
  ASSERT_EQ(Urls().size(), sent + 1);
  EXPECT_NE(LastUrl().find("?watch=1&allowWatchBookmarks=true&resourceVersion=20&"), std::string::npos);
  EXPECT_EQ(reflector_->stats().lists.load(), 1u);
  EXPECT_EQ(reflector_->stats().bookmarks.load(), 1u);
}

TEST_F(ReflectorTest, AFailedListIsTriedAgainOnlyAfterTheBackoffOnTheClock) {
  OnLoop([&] { reflector_->Start(); });
  Answer(500, R"({"kind":"Status","reason":"InternalError","message":"etcd is down","code":500})");
  EXPECT_EQ(Urls().size(), 1u);
  EXPECT_NE(reflector_->last_error().find("etcd is down"), std::string::npos) << reflector_->last_error();
  Move(kBackoff - 1);  // below the shortest jittered delay
  EXPECT_EQ(Urls().size(), 1u);
  Move(kBackoff + 1);  // past the longest
  ASSERT_EQ(Urls().size(), 2u);
  EXPECT_EQ(LastUrl(), kApi + "?limit=2");
  // The second failure waits twice as long: [20 s, 40 s).
  Answer(503);
  Move(2 * kBackoff - 1);
  EXPECT_EQ(Urls().size(), 2u);
  Move(2 * kBackoff + 1);
  ASSERT_EQ(Urls().size(), 3u);
  Answer(200, List("10", {Cm("cm0", "5")}));
  EXPECT_TRUE(reflector_->synced());
  EXPECT_EQ(reflector_->stats().errors.load(), 2u);
  EXPECT_EQ(Delivered(), std::vector<std::string>{"Added cm0 5"});
}

TEST_F(ReflectorTest, ABackoffStartsOverAfterTwoMinutesWithoutFailure) {
  Listed();
  Answer(500);  // the watch: [10 s, 20 s)
  Move(2 * kBackoff);
  Answer(500);  // [20 s, 40 s)
  Move(4 * kBackoff);
  size_t sent = Urls().size();
  Move(121 * kS);  // healthy for over two minutes
  Answer(500);     // back to [10 s, 20 s)
  Move(2 * kBackoff);
  EXPECT_EQ(Urls().size(), sent + 1);
}

TEST_F(ReflectorTest, AFailedWatchIsWatchedAgainFromTheSameVersionAfterTheBackoff) {
  Listed();
  Stream(WatchLine("MODIFIED", Cm("cm0", "11")));
  Answer(500);
  size_t sent = Urls().size();
  Move(2 * kBackoff);
  ASSERT_EQ(Urls().size(), sent + 1);
  EXPECT_NE(LastUrl().find("?watch=1&allowWatchBookmarks=true&resourceVersion=11&"), std::string::npos);
  EXPECT_EQ(reflector_->stats().relists.load(), 0u);
}

TEST_F(ReflectorTest, AStreamThatIsNotJsonEndsTheWatchAndItIsWatchedAgain) {
  Listed();
  Stream(WatchLine("MODIFIED", Cm("cm0", "11")));
  Stream("this is not json\n");  // refused: the transfer is aborted
  EXPECT_NE(reflector_->last_error().find("watch configmaps"), std::string::npos) << reflector_->last_error();
  size_t sent = Urls().size();
  Move(2 * kBackoff);
  ASSERT_EQ(Urls().size(), sent + 1);
  EXPECT_NE(LastUrl().find("resourceVersion=11&"), std::string::npos);
  EXPECT_EQ(Delivered().size(), 3u);
}

// 410 Gone, as a status or as an ERROR event in the stream: relist, and
// deliver only the difference, changes first and vanished objects last
// (client-go's DeltaFIFO.Replace), then watch from the new list's version.
void ExpectRelistDeliversTheDifference(ReflectorTest& t) {
  EXPECT_EQ(t.reflector_->stats().relists.load(), 1u);
  size_t sent = t.Urls().size();
  t.Move(2 * kBackoff);
  ASSERT_EQ(t.Urls().size(), sent + 1);
  EXPECT_EQ(t.LastUrl(), kApi + "?limit=2");
  // cm0 deleted, cm1 changed, cm2 new.
  t.Answer(200, List("30", {Cm("cm1", "25"), Cm("cm2", "26")}));
  EXPECT_EQ(t.Delivered(), (std::vector<std::string>{"Added cm0 5", "Added cm1 6", "Modified cm1 25",
                                                     "Added cm2 26", "Deleted cm0 5"}));
  EXPECT_NE(t.LastUrl().find("resourceVersion=30&"), std::string::npos);
}

TEST_F(ReflectorTest, GoneStatusRelistsAndDeliversOnlyTheDifference) {
  Listed();
  Answer(410, R"({"kind":"Status","reason":"Expired","code":410})");
  ExpectRelistDeliversTheDifference(*this);
}

TEST_F(ReflectorTest, GoneErrorEventRelistsAndDeliversOnlyTheDifference) {
  Listed();
  Stream(WatchLine("ERROR", R"({"kind":"Status","reason":"Expired","code":410})"));
  ExpectRelistDeliversTheDifference(*this);
}

TEST_F(ReflectorTest, CredentialsRejectedFiveTimesInARowAreFatalAndNothingIsSentAfter) {
  OnLoop([&] { reflector_->Start(); });
  for (int i = 0; i < Reflector::kMaxUnauthorized; ++i) {
    Answer(401, R"({"kind":"Status","reason":"Unauthorized","code":401})");
    Move(1000 * kS);
  }
  OnLoop([&] {
    EXPECT_NE(fatal_.find("credentials rejected (HTTP 401) 5 times in a row"), std::string::npos) << fatal_;
  });
  EXPECT_EQ(Urls().size(), static_cast<size_t>(Reflector::kMaxUnauthorized));
  Move(1000 * kS);
  EXPECT_EQ(Urls().size(), static_cast<size_t>(Reflector::kMaxUnauthorized));
}

TEST_F(ReflectorTest, AStoppedReflectorIgnoresLateAnswersAndSendsNothing) {
  OnLoop([&] { reflector_->Start(); });
  OnLoop([&] { reflector_->Stop(); });
  Answer(200, List("10", {Cm("cm0", "5")}));
  EXPECT_TRUE(Delivered().empty());
  EXPECT_FALSE(reflector_->synced());
  Move(1000 * kS);
  EXPECT_EQ(Urls().size(), 1u);
}

}  // namespace
}  // namespace recon::k8s
