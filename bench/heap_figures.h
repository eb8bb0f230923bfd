// The live heap of a bench split by component: the simulated cluster, the
// engine's World, the domains' state. Each component allocates in its own
// jemalloc arena while it runs (the thread's arena switched as the bench
// enters it), with the thread cache off so that an allocation is counted
// in the arena of the component that made it, until it is freed. Sample()
// keeps each arena's peak of bytes allocated (what the component holds) and
// resident (the pages it keeps). A block one component allocates and
// another keeps stays counted where it was allocated.
//
// Without jemalloc (sanitizer builds link none) Start returns nullptr: the
// split is then not measured, and the benches say so.
#ifndef RECON_BENCH_HEAP_FIGURES_H_
#define RECON_BENCH_HEAP_FIGURES_H_

#include <memory>
#include <string>
#include <vector>

namespace recon::bench {

struct HeapPeak {
  std::string part;
  double allocated_mb = 0, resident_mb = 0;
};

class HeapSplit {
 public:
  // One arena per part; the calling thread enters parts[0].
  static std::unique_ptr<HeapSplit> Start(const std::vector<std::string>& parts);
  ~HeapSplit();  // the thread's arena and thread cache as they were
  HeapSplit(const HeapSplit&) = delete;
  HeapSplit& operator=(const HeapSplit&) = delete;

  // From now on this thread allocates for `part` (an index into parts).
  void Enter(size_t part);
  size_t current() const { return current_; }
  // Reads every arena's figures and keeps the peaks.
  void Sample();
  const std::vector<HeapPeak>& peaks() const { return peaks_; }

 private:
  HeapSplit() = default;
  std::vector<unsigned> arenas_;
  std::vector<HeapPeak> peaks_;
  unsigned original_arena_ = 0;
  bool original_tcache_ = true;
  size_t current_ = 0;
};

// {"part":{"allocated_mb":…,"resident_mb":…},…}, or null without a split.
std::string HeapPeaksJson(const std::vector<HeapPeak>& peaks);

}  // namespace recon::bench

#endif  // RECON_BENCH_HEAP_FIGURES_H_
