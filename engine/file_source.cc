#include "engine/file_source.h"

#include <algorithm>

#include "base/strings.h"

namespace recon::engine {

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

}  // namespace recon::engine
