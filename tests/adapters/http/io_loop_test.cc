// IoLoop's timers on the injected clock: a hand-moved clock fires what it
// made due, in time order, when told (ClockMoved), and nothing before.
#include "adapters/http/io_loop.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/time_source.h"
#include "tests/lib/eventually.h"

namespace recon::http {
namespace {

constexpr int64_t kS = 1'000'000'000;
constexpr int64_t kHourMs = 3'600'000;  // never reached in real time here

class Fired {
 public:
  void Add(std::string what) {
    std::lock_guard<std::mutex> lock(mu_);
    fired_.push_back(std::move(what));
  }
  std::vector<std::string> Get() {
    std::lock_guard<std::mutex> lock(mu_);
    return fired_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> fired_;
};

TEST(IoLoop, TimersFireWhenTheClockIsMovedPastThemInTimeOrder) {
  runtime::ManualTimeSource clock(100 * kS);
  IoLoop loop(clock);
  loop.Start();
  Fired fired;
  std::atomic<uint64_t> cancelled{0};
  loop.Post([&] {
    loop.At(130 * kS, [&] { fired.Add("at 130"); });
    loop.After(10 * 1000, [&] { fired.Add("after 10 s"); });  // 110 s
    loop.At(120 * kS, [&] { fired.Add("at 120"); });
    cancelled = loop.At(115 * kS, [&] { fired.Add("cancelled"); });
    loop.After(kHourMs, [&] { fired.Add("in an hour"); });
  });
  loop.Post([&] { loop.Cancel(cancelled); });
  clock.Advance(9 * kS);
  loop.ClockMoved();
  EXPECT_TRUE(fired.Get().empty());
  clock.Advance(21 * kS);  // 130 s
  loop.ClockMoved();
  EXPECT_EQ(fired.Get(), (std::vector<std::string>{"after 10 s", "at 120", "at 130"}));
  clock.Advance(3600 * kS);
  loop.ClockMoved();
  EXPECT_EQ(fired.Get().back(), "in an hour");
  loop.Stop();
}

TEST(IoLoop, ATimerAlsoFiresAfterItsDelayInRealTime) {
  // A stepped or frozen clock never stalls the loop: the monotonic delay
  // set with the timer fires it too.
  runtime::ManualTimeSource clock(0);
  IoLoop loop(clock);
  loop.Start();
  Fired fired;
  loop.Post([&] { loop.After(1, [&] { fired.Add("1 ms"); }); });
  EXPECT_TRUE(testlib::Eventually([&] { return fired.Get().size() == 1; }));
  loop.Stop();
}

TEST(IoLoop, ClockMovedAfterStopReturns) {
  runtime::ManualTimeSource clock(0);
  IoLoop loop(clock);
  loop.Start();
  loop.Stop();
  loop.ClockMoved();  // nothing to run, and no wait
}

}  // namespace
}  // namespace recon::http
