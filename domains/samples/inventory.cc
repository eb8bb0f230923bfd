#include "domains/samples/inventory.h"

#include <string_view>

#include "base/strings.h"
#include "domains/samples/names.h"

namespace recon::samples {
namespace {

std::string_view ParentDir(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return "";
  std::string_view dir = path.substr(0, slash);
  size_t prev = dir.rfind('/');
  return prev == std::string_view::npos ? dir : dir.substr(prev + 1);
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

absl::Status FileError(std::string_view err, std::string_view path) {
  return absl::InvalidArgumentError(recon::StrCat(err, " error reading file [", path, "]"));
}

}  // namespace

absl::StatusOr<Inventory> LoadInventory(const records::ContentFiles& files) {
  Inventory inv;
  for (const auto& [path, text] : files) {
    std::string_view dir = ParentDir(path);
    const bool is_stream = EndsWith(dir, "imagestreams");
    const bool is_template = !is_stream && EndsWith(dir, "templates");
    if (!is_stream && !is_template) continue;
    auto parsed = engine::ParseJson(text);
    if (!parsed.ok()) return FileError(Sv(parsed.status().message()), path);
    Json obj = std::move(*parsed);
    std::string name = engine::GetString(obj, {"metadata", "name"});
    if (!obj.is_object() || name.empty()) return FileError("object has no metadata.name", path);
    obj["apiVersion"] = is_stream ? kImageApiVersion : kTemplateApiVersion;
    if (is_stream) {
      if (!name.starts_with("jenkins")) {
        const Json& tags = engine::Path(obj, {"spec", "tags"});
        if (tags.is_array()) {
          for (const Json& tag : tags) {
            if (engine::GetString(tag, {"from", "kind"}) != "DockerImage") continue;
            inv.ist_to_image[recon::StrCat(name, "_", engine::GetString(tag, {"name"}))] =
                engine::GetString(tag, {"from", "name"});
          }
        }
      }
      inv.streams[name] = std::move(obj);
    } else {
      inv.templates[name] = std::move(obj);
    }
  }
  return inv;
}

}  // namespace recon::samples
