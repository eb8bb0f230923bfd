#include "soak/memory.h"

#include <algorithm>
#include <fstream>

#include "soak/scrape.h"

namespace recon::soak {

void MemorySamples::Restart() {
  segment_start_ = Clock::now();
  rss_.clear();
}

void MemorySamples::Sample(pid_t pid, int metrics_port) {
  auto now = Clock::now();
  if (!rss_.empty() && now - last_sample_ < std::chrono::milliseconds(250)) return;
  last_sample_ = now;
  int64_t kb = RssKb(pid);
  if (kb <= 0) return;
  std::string m = LocalGet(metrics_port, "/metrics");
  rss_.push_back({std::chrono::duration<double>(Clock::now() - segment_start_).count(), kb,
                  GaugeKb(m, "recon_store_memory_bytes"), GaugeKb(m, "recon_heap_in_use_bytes")});
}

// Growth over the second half of the final agent's run. "At mid" and
// "at end" are means over 5% of the run (around the middle, and its
// last 5%): memtables fill and flush in a sawtooth of tens of MB, which
// single samples would turn into noise larger than the 5% checked.
void MemorySamples::Finish(const std::string& tsv_path, SoakLeg* leg) const {
  if (rss_.size() < 4) return;
  const double span = rss_.back().t;
  auto mean = [&](double from, double to, int64_t RssSample::*field) {
    int64_t sum = 0, n = 0;
    for (const auto& r : rss_) {
      if (r.t < from || r.t > to || r.*field < 0) continue;
      sum += r.*field;
      ++n;
    }
    if (n > 0) return sum / n;
    // A short run: the first sample at or after `from` (the last one else).
    auto at = std::lower_bound(rss_.begin(), rss_.end(), from,
                               [](const RssSample& r, double t) { return r.t < t; });
    return (at == rss_.end() ? rss_.back() : *at).*field;
  };
  const double mid_from = span * 0.475, mid_to = span * 0.525, end_from = span * 0.95;
  leg->rss_mid_kb = mean(mid_from, mid_to, &RssSample::kb);
  leg->rss_end_kb = mean(end_from, span, &RssSample::kb);
  leg->store_mid_kb = mean(mid_from, mid_to, &RssSample::store_kb);
  leg->store_end_kb = mean(end_from, span, &RssSample::store_kb);
  leg->heap_mid_kb = mean(mid_from, mid_to, &RssSample::heap_kb);
  leg->heap_end_kb = mean(end_from, span, &RssSample::heap_kb);
  std::ofstream tsv(tsv_path);
  tsv << "seconds\trss_kb\tstore_kb\theap_kb\n";
  for (const auto& r : rss_) tsv << r.t << '\t' << r.kb << '\t' << r.store_kb << '\t' << r.heap_kb << '\n';
  for (const auto& r : rss_) leg->rss_max_kb = std::max(leg->rss_max_kb, r.kb);
  if (leg->rss_mid_kb > 0)
    leg->rss_growth =
        static_cast<double>(leg->rss_end_kb - leg->rss_mid_kb) / static_cast<double>(leg->rss_mid_kb);
}

}  // namespace recon::soak
