#include "adapters/http/token_bucket.h"

#include <algorithm>
#include <cmath>

namespace recon::http {

void TokenBucket::Refill(int64_t now_ns) {
  if (now_ns > last_ns_) {
    tokens_ = std::min<double>(burst_, tokens_ + qps_ * static_cast<double>(now_ns - last_ns_) / 1e9);
    last_ns_ = now_ns;
  }
}

bool TokenBucket::TryTake(int64_t now_ns, int64_t* wait_ns) {
  if (now_ns < paused_until_ns_) {
    if (wait_ns) *wait_ns = paused_until_ns_ - now_ns;
    return false;
  }
  if (qps_ <= 0) return true;  // unlimited
  Refill(now_ns);
  if (tokens_ >= 1.0) {
    tokens_ -= 1.0;
    return true;
  }
  if (wait_ns) *wait_ns = static_cast<int64_t>(std::ceil((1.0 - tokens_) / qps_ * 1e9));
  return false;
}

}  // namespace recon::http
