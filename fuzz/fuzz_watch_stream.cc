// Fuzzes the Kubernetes watch-stream parser (adapters/k8s/watch_stream.h):
// any bytes, cut into chunks at input-chosen points, must give events or an
// error, never a crash; the chunking must not matter (a stream fed in one
// piece and in many gives the same events, or both fail); every event's
// object is the JSON object text the adapter will store as the body.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "adapters/k8s/watch_stream.h"
#include "engine/json.h"

namespace {

using recon::k8s::WatchEvent;
using recon::k8s::WatchStreamParser;

constexpr size_t kMaxLine = 4096;  // small, so the line limit is reached too

bool Same(const std::vector<WatchEvent>& a, const std::vector<WatchEvent>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].type != b[i].type || a[i].object != b[i].object) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  // The first byte seeds the chunk sizes (1..32 bytes, varying).
  unsigned seed = data[0];
  std::string_view stream(reinterpret_cast<const char*>(data + 1), size - 1);

  WatchStreamParser whole(kMaxLine);
  auto all = whole.Feed(stream);

  WatchStreamParser chunked(kMaxLine);
  std::vector<WatchEvent> pieces;
  bool failed = false;
  for (size_t at = 0; at < stream.size() && !failed;) {
    seed = seed * 1103515245u + 12345u;
    size_t n = std::min<size_t>(stream.size() - at, 1 + (seed >> 16) % 32);
    auto got = chunked.Feed(stream.substr(at, n));
    at += n;
    if (!got.ok()) {
      failed = true;
      // A failed parser stays failed.
      if (chunked.Feed("{}\n").ok()) abort();
      break;
    }
    for (auto& e : *got) pieces.push_back(std::move(e));
  }
  if (all.ok() != !failed) abort();
  if (all.ok()) {
    if (!Same(*all, pieces)) abort();
    if (whole.buffered() != chunked.buffered()) abort();
    for (const auto& e : *all) {
      auto body = recon::engine::ParseJson(e.object);
      if (!body.ok() || !body->is_object()) abort();
    }
  }
  return 0;
}
