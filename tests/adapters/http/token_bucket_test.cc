// The client-side token bucket on a fake clock.
#include "adapters/http/token_bucket.h"

#include <gtest/gtest.h>

namespace recon::http {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kS = 1'000'000'000;

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
}  // namespace recon::http
