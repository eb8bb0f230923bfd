#include "io/disk_file_source.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "base/strings.h"

namespace recon::io {

using engine::FileInfo;
using engine::WalkOrderLess;

absl::StatusOr<std::vector<FileInfo>> DiskFileSource::List() const {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(root_, ec)) return absl::NotFoundError(StrCat(root_, ": not a directory"));
  std::vector<FileInfo> out;
  // Like WalkDir: symlinked directories are not followed, symlinked files are read.
  fs::recursive_directory_iterator it(root_, fs::directory_options::none, ec), end;
  if (ec) return absl::InternalError(StrCat(root_, ": ", ec.message()));
  for (; it != end; it.increment(ec)) {
    if (ec) return absl::InternalError(StrCat(root_, ": ", ec.message()));
    const auto& entry = *it;
    if (entry.is_directory(ec) && !entry.is_symlink(ec)) continue;
    if (entry.is_symlink(ec) && fs::is_directory(entry.path(), ec)) continue;
    if (!entry.is_regular_file(ec)) continue;
    FileInfo f;
    f.path = fs::relative(entry.path(), root_, ec).generic_string();
    f.size = entry.file_size(ec);
    out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(),
            [](const FileInfo& a, const FileInfo& b) { return WalkOrderLess(a.path, b.path); });
  return out;
}

absl::Status DiskFileSource::Read(const std::string& path, std::string* out) const {
  std::string full = StrCat(root_, "/", path);
  std::FILE* f = std::fopen(full.c_str(), "rb");
  if (!f) return absl::NotFoundError(StrCat(full, ": cannot open"));
  std::fseek(f, 0, SEEK_END);
  long size = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  out->clear();
  out->reserve(static_cast<size_t>(size) + 64);  // simdjson padding
  out->resize(static_cast<size_t>(size));
  size_t got = size > 0 ? std::fread(out->data(), 1, static_cast<size_t>(size), f) : 0;
  std::fclose(f);
  if (got != static_cast<size_t>(size)) return absl::DataLossError(StrCat(full, ": short read"));
  return absl::OkStatus();
}

}  // namespace recon::io
