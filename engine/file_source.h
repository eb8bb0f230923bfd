// Where a domain's input files come from (olm's file-based catalogs): an
// in-memory map (tests, and Content events whose files are path → text)
// here; a directory on disk is io::DiskFileSource (io/), outside the
// domains, which do no I/O.
#ifndef RECON_ENGINE_FILE_SOURCE_H_
#define RECON_ENGINE_FILE_SOURCE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace recon::engine {

struct FileInfo {
  std::string path;  // slash-separated, relative to the root
  uint64_t size = 0;
};

class FileSource {
 public:
  virtual ~FileSource() = default;
  // Every regular file below the root, in fs.WalkDir order (component-wise
  // lexical), dot-files included.
  virtual absl::StatusOr<std::vector<FileInfo>> List() const = 0;
  // Reads a listed file into `out` (replacing its contents).
  virtual absl::Status Read(const std::string& path, std::string* out) const = 0;
  // A label for messages (the root directory).
  virtual std::string Root() const = 0;
};

class MemoryFileSource : public FileSource {
 public:
  explicit MemoryFileSource(std::map<std::string, std::string> files) : files_(std::move(files)) {}
  absl::StatusOr<std::vector<FileInfo>> List() const override;
  absl::Status Read(const std::string& path, std::string* out) const override;
  std::string Root() const override { return "<memory>"; }

 private:
  std::map<std::string, std::string> files_;
};

// fs.WalkDir order: compare path components one by one.
bool WalkOrderLess(const std::string& a, const std::string& b);

}  // namespace recon::engine

#endif  // RECON_ENGINE_FILE_SOURCE_H_
