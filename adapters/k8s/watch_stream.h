// A Kubernetes watch response is a stream of JSON objects, one per line
// ({"type":"ADDED","object":{...}}), delivered in arbitrary chunks. The
// parser turns chunks into complete events; it is pure (bytes in, events
// or an error out) so it can be fuzzed.
#ifndef RECON_ADAPTERS_K8S_WATCH_STREAM_H_
#define RECON_ADAPTERS_K8S_WATCH_STREAM_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace recon::k8s {

struct WatchEvent {
  std::string type;    // ADDED, MODIFIED, DELETED, BOOKMARK or ERROR
  std::string object;  // the "object" member's JSON text as the server sent it
};

// One line of a watch stream. Errors quote the (shortened) line.
absl::StatusOr<WatchEvent> ParseWatchLine(std::string_view line);

class WatchStreamParser {
 public:
  // A line longer than `max_line` bytes is an error (a broken server must
  // not make us buffer without bound); objects are at most ~1.5 MiB in etcd.
  explicit WatchStreamParser(size_t max_line = 64u << 20) : max_line_(max_line) {}

  // Consumes a chunk; returns the events completed by it, in order. After
  // an error the parser stays failed (the watch is restarted anyway).
  absl::StatusOr<std::vector<WatchEvent>> Feed(std::string_view bytes);

  // Bytes of an incomplete last line held back.
  size_t buffered() const { return partial_.size(); }

 private:
  size_t max_line_;
  std::string partial_;
  absl::Status failed_;
  size_t line_no_ = 0;
};

}  // namespace recon::k8s

#endif  // RECON_ADAPTERS_K8S_WATCH_STREAM_H_
