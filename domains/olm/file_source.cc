#include "domains/olm/file_source.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "base/strings.h"

namespace recon::olm {

bool WalkOrderLess(const std::string& a, const std::string& b) {
  auto split = [](std::string_view s) {
    std::vector<std::string_view> parts;
    size_t i = 0;
    for (;;) {
      size_t e = s.find('/', i);
      parts.push_back(s.substr(i, e == std::string_view::npos ? std::string_view::npos : e - i));
      if (e == std::string_view::npos) return parts;
      i = e + 1;
    }
  };
  auto pa = split(a), pb = split(b);
  return std::lexicographical_compare(pa.begin(), pa.end(), pb.begin(), pb.end());
}

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

absl::StatusOr<std::vector<FileInfo>> MemoryFileSource::List() const {
  std::vector<FileInfo> out;
  for (const auto& [p, text] : files_) out.push_back({p, text.size()});
  std::sort(out.begin(), out.end(),
            [](const FileInfo& a, const FileInfo& b) { return WalkOrderLess(a.path, b.path); });
  return out;
}

absl::Status MemoryFileSource::Read(const std::string& path, std::string* out) const {
  auto it = files_.find(path);
  if (it == files_.end()) return absl::NotFoundError(StrCat(path, ": no such file"));
  out->clear();
  out->reserve(it->second.size() + 64);
  out->append(it->second);
  return absl::OkStatus();
}

}  // namespace recon::olm
