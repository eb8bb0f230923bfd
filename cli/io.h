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
#include "records/record.h"

namespace recon::cli {

// Reads a whole file, or standard input for "-".
absl::StatusOr<std::string> ReadInput(const std::string& path);

// Reads and parses a whole JSONL log (a file or "-"); the Nth event has seq N.
absl::StatusOr<std::vector<records::EventRecord>> ReadLog(const std::string& path);

// A one-line progress display on a TTY (stderr); silent when piped or
// with `quiet`. Without a byte total (0) it shows the events and their rate.
class Progress {
 public:
  Progress(std::string label, uint64_t total_bytes, bool quiet = false);
  void Update(uint64_t bytes, uint64_t items);
  void Done();

 private:
  std::string label_;
  uint64_t total_;
  bool tty_;
  int64_t start_ns_;
  int64_t last_ns_ = 0;
};

// Exit codes, the same for every sub-command: 0 ok; 1 a failure (bad input
// file, store, cluster) or a finding (divergence, check findings); 2 a
// usage error (the command line itself: unknown option, missing or extra
// argument, an option value that does not parse).
inline constexpr int kExitOk = 0, kExitFailure = 1, kExitUsage = 2;

// Prints "recon <cmd>: <message>" to stderr and returns 1.
int Fail(absl::string_view cmd, absl::string_view message);

// Prints "recon <cmd>: <message>" and where the usage is to stderr; returns 2.
int UsageError(absl::string_view cmd, absl::string_view message);

}  // namespace recon::cli

#endif  // RECON_CLI_IO_H_
