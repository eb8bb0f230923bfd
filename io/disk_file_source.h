// A catalog directory on disk as an engine::FileSource (the domain itself does
// no file I/O). Used by the cli, bench and tests.
#ifndef RECON_IO_DISK_FILE_SOURCE_H_
#define RECON_IO_DISK_FILE_SOURCE_H_

#include <string>
#include <vector>

#include "engine/file_source.h"

namespace recon::io {

class DiskFileSource : public engine::FileSource {
 public:
  explicit DiskFileSource(std::string root) : root_(std::move(root)) {}
  // Like Go's fs.WalkDir: symlinked directories are not followed,
  // symlinked files are read; sorted in walk order.
  absl::StatusOr<std::vector<engine::FileInfo>> List() const override;
  absl::Status Read(const std::string& path, std::string* out) const override;
  std::string Root() const override { return root_; }

 private:
  std::string root_;
};

}  // namespace recon::io

#endif  // RECON_IO_DISK_FILE_SOURCE_H_
