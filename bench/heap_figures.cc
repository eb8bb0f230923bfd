#include "bench/heap_figures.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_format.h"

// jemalloc's control interface, weak: present when the program links
// jemalloc (recon does), null otherwise (sanitizer builds, unit tests).
extern "C" int mallctl(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen)
    __attribute__((weak));

namespace recon::bench {
namespace {

template <typename T>
bool Read(const std::string& name, T* out) {
  size_t len = sizeof(T);
  return mallctl(name.c_str(), out, &len, nullptr, 0) == 0;
}

template <typename T>
bool Write(const char* name, T value) {
  return mallctl(name, nullptr, nullptr, &value, sizeof(T)) == 0;
}

double Mb(size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

}  // namespace

std::unique_ptr<HeapSplit> HeapSplit::Start(const std::vector<std::string>& parts) {
  if (mallctl == nullptr || parts.empty()) return nullptr;
  std::unique_ptr<HeapSplit> h(new HeapSplit());
  // A stats-less jemalloc has no per-arena figures: no split then.
  size_t probe = 0;
  if (!Read("thread.arena", &h->original_arena_) || !Read("thread.tcache.enabled", &h->original_tcache_) ||
      !Read("stats.arenas.0.small.allocated", &probe))
    return nullptr;
  for (const std::string& p : parts) {
    unsigned arena = 0;
    if (!Read("arenas.create", &arena)) return nullptr;
    h->arenas_.push_back(arena);
    h->peaks_.push_back({p, 0, 0});
  }
  if (!Write("thread.tcache.enabled", false)) return nullptr;
  h->Enter(0);
  return h;
}

HeapSplit::~HeapSplit() {
  Write("thread.arena", original_arena_);
  Write("thread.tcache.enabled", original_tcache_);
}

void HeapSplit::Enter(size_t part) {
  if (part >= arenas_.size()) return;
  current_ = part;
  Write("thread.arena", arenas_[part]);
}

void HeapSplit::Sample() {
  uint64_t epoch = 1;
  size_t len = sizeof(epoch);
  mallctl("epoch", &epoch, &len, &epoch, len);  // refreshes the stats read below
  for (size_t i = 0; i < arenas_.size(); ++i) {
    const std::string prefix = absl::StrFormat("stats.arenas.%u.", arenas_[i]);
    size_t small = 0, large = 0, resident = 0;
    Read(prefix + "small.allocated", &small);
    Read(prefix + "large.allocated", &large);
    Read(prefix + "resident", &resident);
    HeapPeak& p = peaks_[i];
    p.allocated_mb = std::max(p.allocated_mb, Mb(small + large));
    p.resident_mb = std::max(p.resident_mb, Mb(resident));
  }
}

std::string HeapPeaksJson(const std::vector<HeapPeak>& peaks) {
  if (peaks.empty()) return "null";
  std::string out = "{";
  for (const HeapPeak& p : peaks) {
    absl::StrAppendFormat(&out, R"(%s"%s":{"allocated_mb":%.1f,"resident_mb":%.1f})",
                          out.size() > 1 ? "," : "", p.part, p.allocated_mb, p.resident_mb);
  }
  return out + "}";
}

}  // namespace recon::bench
