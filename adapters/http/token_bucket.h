// Client-side request rate limit (client-go's QPS/burst, a token bucket):
// `burst` requests at once, then `qps` per second. Time from an injected
// clock so tests drive it.
#ifndef RECON_ADAPTERS_HTTP_TOKEN_BUCKET_H_
#define RECON_ADAPTERS_HTTP_TOKEN_BUCKET_H_

#include <cstdint>

namespace recon::http {

class TokenBucket {
 public:
  TokenBucket(double qps, int burst, int64_t now_ns)
      : qps_(qps), burst_(burst), tokens_(burst), last_ns_(now_ns) {}
  // Takes a token if one is there; otherwise returns false and how long
  // until one is (in `wait_ns`).
  bool TryTake(int64_t now_ns, int64_t* wait_ns = nullptr);
  // Nobody may send before `until_ns` (a 429's Retry-After).
  void PauseUntil(int64_t until_ns) {
    if (until_ns > paused_until_ns_) paused_until_ns_ = until_ns;
  }
  double tokens() const { return tokens_; }

 private:
  void Refill(int64_t now_ns);
  double qps_;
  int burst_;
  double tokens_;
  int64_t last_ns_;
  int64_t paused_until_ns_ = 0;
};

}  // namespace recon::http

#endif  // RECON_ADAPTERS_HTTP_TOKEN_BUCKET_H_
