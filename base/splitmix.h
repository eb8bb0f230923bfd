// splitmix64: a tiny seedable generator whose output is fixed by its
// definition (unlike the standard library's distributions), so seeded runs
// repeat across platforms. Used for jitter and simulated faults, never on a
// reducer's path.
#ifndef RECON_BASE_SPLITMIX_H_
#define RECON_BASE_SPLITMIX_H_

#include <cstdint>

namespace recon {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }  // [0, 1)
  // Uniform in [lo, hi); lo when the range is empty.
  int64_t Between(int64_t lo, int64_t hi) {
    if (hi <= lo) return lo;
    return lo + static_cast<int64_t>(Uniform() * static_cast<double>(hi - lo));
  }

 private:
  uint64_t state_;
};

}  // namespace recon

#endif  // RECON_BASE_SPLITMIX_H_
