// Parses the JSONL interchange format (DESIGN.md "JSONL interchange") into
// EventRecords. Every problem names the line, the field and what was
// expected; the first bad line stops the parse so nothing is half-imported.
#ifndef RECON_ENGINE_JSONL_READER_H_
#define RECON_ENGINE_JSONL_READER_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "records/record.h"

namespace recon::engine {

struct ParsedLine {
  records::EventRecord event;
  size_t line = 0;  // 1-based physical line number
};

class JsonlReader {
 public:
  JsonlReader();
  ~JsonlReader();

  // Parses one line (no trailing newline). Errors are "line N: ..." messages.
  absl::StatusOr<records::EventRecord> ParseLine(std::string_view line, size_t line_no);

  // Parses a whole file's bytes. Blank lines are skipped (they take no seq).
  // `progress` (optional) is called now and then with the bytes consumed and
  // the events parsed so far.
  using ProgressFn = std::function<void(size_t bytes, size_t events)>;
  absl::StatusOr<std::vector<ParsedLine>> ParseAll(std::string_view data, std::string_view source,
                                                   const ProgressFn& progress = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Splits "group/version" (or "v1" for the core group).
void SplitApiVersion(std::string_view api_version, std::string* group, std::string* version);

}  // namespace recon::engine

#endif  // RECON_ENGINE_JSONL_READER_H_
