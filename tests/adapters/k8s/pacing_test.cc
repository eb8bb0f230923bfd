// Backoff with jitter, on fixed seeds and a fake clock.
#include <gtest/gtest.h>

#include "adapters/k8s/backoff.h"

namespace recon::k8s {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kS = 1'000'000'000;

TEST(Backoff, DoublesFrom800msTo30sWithJitterInBounds) {
  Rng rng(42);
  Backoff b(rng);
  int64_t now = 1000 * kS;
  int64_t expect_base = 800 * kMs;
  for (int i = 0; i < 12; ++i) {
    int64_t d = b.Next(now);
    EXPECT_EQ(b.base_ns(), expect_base) << i;
    EXPECT_GE(d, expect_base) << i;
    EXPECT_LT(d, 2 * expect_base) << i;
    expect_base = std::min<int64_t>(expect_base * 2, 30 * kS);
    now += kS;  // failures close together: no reset
  }
  EXPECT_EQ(b.base_ns(), 30 * kS);
}

TEST(Backoff, ResetsAfterAHealthyPeriod) {
  Rng rng(7);
  Backoff b(rng);
  int64_t now = 0;
  for (int i = 0; i < 5; ++i) b.Next(now += kS);
  EXPECT_EQ(b.base_ns(), 800 * kMs * 16);
  b.Next(now += 119 * kS);  // just under 2 min: keeps growing
  EXPECT_EQ(b.base_ns(), 800 * kMs * 32);
  b.Next(now += 120 * kS);
  EXPECT_EQ(b.base_ns(), 800 * kMs);
}

TEST(Backoff, JitterIsSpreadAndSeeded) {
  Rng a(1), b(1), c(2);
  int64_t lo = INT64_MAX, hi = 0;
  for (int i = 0; i < 1000; ++i) {
    Backoff x(a), y(b);
    int64_t d = x.Next(0);
    EXPECT_EQ(d, y.Next(0));  // same seed, same numbers
    lo = std::min(lo, d);
    hi = std::max(hi, d);
  }
  EXPECT_LT(lo, 900 * kMs);
  EXPECT_GT(hi, 1500 * kMs);
  Backoff x(a), z(c);
  EXPECT_NE(x.Next(0), z.Next(0));
}

TEST(Rng, BetweenStaysInRange) {
  Rng r(3);
  for (int i = 0; i < 10000; ++i) {
    int64_t v = r.Between(300, 600);
    ASSERT_GE(v, 300);
    ASSERT_LT(v, 600);
  }
}

}  // namespace
}  // namespace recon::k8s
