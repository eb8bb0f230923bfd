// PacedClient on the in-memory transport and a hand-moved clock: the rate
// limit, Retry-After and the fence, with no socket and no wait on the wall
// clock.
#include "adapters/http/paced_client.h"

#include <gtest/gtest.h>

#include <functional>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "adapters/http/fake_transport.h"
#include "adapters/http/io_loop.h"
#include "runtime/time_source.h"

namespace recon::http {
namespace {

constexpr int64_t kS = 1'000'000'000;

class PacedClientTest : public ::testing::Test {
 protected:
  void SetUp() override { loop_.Start(); }
  void TearDown() override {
    OnLoop([&] { client_.reset(); });
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
  void Make(PaceOptions options) {
    OnLoop([&] { client_.emplace(loop_, transport_, options); });
  }
  void Send(std::string path, std::function<bool()> gate = nullptr) {
    OnLoop([&] {
      HttpRequest r;
      r.url = client_->Url(path);
      client_->Send(
          std::move(r),
          [this, path](HttpResponse resp) {
            answers_.push_back(path + " " + std::to_string(resp.status) + resp.error);
          },
          std::move(gate));
    });
  }
  void Answer(int status, int64_t retry_after_s = -1) {
    OnLoop([&] {
      HttpResponse r;
      r.status = status;
      r.retry_after_s = retry_after_s;
      ASSERT_TRUE(transport_.AnswerNext(std::move(r)));
    });
  }
  void Move(int64_t ns) {
    clock_.Advance(ns);
    loop_.ClockMoved();
  }
  size_t Sent() {
    size_t n = 0;
    OnLoop([&] { n = transport_.sent().size(); });
    return n;
  }

  runtime::ManualTimeSource clock_{1000 * kS};
  IoLoop loop_{clock_};
  FakeTransport transport_{[] {
    RestConfig c;
    c.server = "https://api.example:6443";
    return c;
  }()};
  std::optional<PacedClient> client_;
  std::vector<std::string> answers_;  // loop thread only
};

TEST_F(PacedClientTest, RetryAfterIsWaitedOnTheClockThenSentAgain) {
  Make({.qps = 0, .burst = 0, .max_retries = 5, .max_retry_after_s = 60});
  Send("/a");
  ASSERT_EQ(Sent(), 1u);
  EXPECT_EQ(transport_.sent()[0].url, "https://api.example:6443/a");
  Answer(429, 30);
  Move(29 * kS);
  EXPECT_EQ(Sent(), 1u);  // the server asked for 30 s
  Move(1 * kS);
  EXPECT_EQ(Sent(), 2u);
  Answer(200);
  OnLoop([&] { EXPECT_EQ(answers_, std::vector<std::string>{"/a 200"}); });
  EXPECT_EQ(client_->retried(), 1u);
}

TEST_F(PacedClientTest, RetryAfterHoldsEveryRequestAndIsCappedAndBounded) {
  Make({.qps = 0, .burst = 0, .max_retries = 1, .max_retry_after_s = 10});
  Send("/a");
  Answer(503, 3600);  // capped at 10 s
  Send("/b");
  EXPECT_EQ(Sent(), 1u);  // /b waits too: the server said it is overloaded
  Move(10 * kS);
  EXPECT_EQ(Sent(), 3u);  // /a again, then /b
  Answer(429, 5);         // /a: its one retry used up, the caller gets it
  Answer(200);            // /b
  OnLoop([&] { EXPECT_EQ(answers_, (std::vector<std::string>{"/a 429", "/b 200"})); });
}

TEST_F(PacedClientTest, QpsAndBurstSpaceRequestsOnTheClock) {
  Make({.qps = 2, .burst = 2, .max_retries = 5, .max_retry_after_s = 60});
  for (const char* p : {"/1", "/2", "/3", "/4"}) Send(p);
  EXPECT_EQ(Sent(), 2u);  // the burst
  Move(kS / 2);
  EXPECT_EQ(Sent(), 3u);
  Move(kS / 2);
  EXPECT_EQ(Sent(), 4u);
}

TEST_F(PacedClientTest, AClosedGateDropsTheRequestAsFenced) {
  Make({.qps = 0, .burst = 0, .max_retries = 5, .max_retry_after_s = 60});
  Send("/lease", [] { return false; });
  EXPECT_EQ(Sent(), 0u);
  OnLoop([&] { EXPECT_EQ(answers_, std::vector<std::string>{"/lease 0fenced"}); });
}

}  // namespace
}  // namespace recon::http
