// Backoff with jitter and the client-side token bucket, on fixed seeds and
// a fake clock.
#include <gtest/gtest.h>

#include "adapters/k8s/backoff.h"
#include "adapters/k8s/token_bucket.h"

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

TEST(TokenBucket, BurstThenQps) {
  int64_t now = 5 * kS;
  TokenBucket tb(20, 30, now);
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(tb.TryTake(now)) << i;
  int64_t wait = 0;
  EXPECT_FALSE(tb.TryTake(now, &wait));
  EXPECT_EQ(wait, 50 * kMs);  // 1/20 s
  EXPECT_FALSE(tb.TryTake(now + 49 * kMs));
  EXPECT_TRUE(tb.TryTake(now + 50 * kMs));
  // One second later: 20 more, not 30.
  now += 50 * kMs + kS;
  int n = 0;
  while (tb.TryTake(now)) ++n;
  EXPECT_EQ(n, 20);
  // A long idle refills to the burst only.
  now += 100 * kS;
  n = 0;
  while (tb.TryTake(now)) ++n;
  EXPECT_EQ(n, 30);
}

TEST(TokenBucket, PauseUntilRetryAfter) {
  TokenBucket tb(20, 30, 0);
  tb.PauseUntil(2 * kS);
  int64_t wait = 0;
  EXPECT_FALSE(tb.TryTake(kS, &wait));
  EXPECT_EQ(wait, kS);
  EXPECT_TRUE(tb.TryTake(2 * kS));
  tb.PauseUntil(kS);  // an earlier pause does not shorten a later one
  EXPECT_TRUE(tb.TryTake(2 * kS));
}

TEST(TokenBucket, ZeroQpsIsUnlimited) {
  TokenBucket tb(0, 1, 0);
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(tb.TryTake(0));
}

}  // namespace
}  // namespace recon::k8s
