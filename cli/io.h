// File and terminal helpers shared by sub-commands.
#ifndef RECON_CLI_IO_H_
#define RECON_CLI_IO_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "store/event_store.h"

namespace recon::cli {

// Reads a whole file, or standard input for "-".
absl::StatusOr<std::string> ReadInput(const std::string& path);

// Reads and parses a whole JSONL log (a file or "-"); the Nth event has seq N.
absl::StatusOr<std::vector<store::EventRecord>> ReadLog(const std::string& path);

// Opens (creating if asked) the RocksDB store at `dir`.
absl::StatusOr<std::unique_ptr<store::EventStore>> OpenStore(const std::string& dir, bool create,
                                                             std::string_view durability = "sync");

// A one-line progress display on a TTY (stderr); silent when piped.
class Progress {
 public:
  Progress(std::string label, uint64_t total_bytes);
  void Update(uint64_t bytes, uint64_t items);
  void Done();

 private:
  std::string label_;
  uint64_t total_;
  bool tty_;
  int64_t start_ns_;
  int64_t last_ns_ = 0;
};

// Prints "recon <cmd>: <message>" to stderr and returns 1.
int Fail(absl::string_view cmd, absl::string_view message);

}  // namespace recon::cli

#endif  // RECON_CLI_IO_H_
