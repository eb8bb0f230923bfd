#include "cli/data_dir.h"

#include <unistd.h>

#include <filesystem>
#include <vector>

#include "base/strings.h"

namespace recon::cli {
namespace fs = std::filesystem;

std::string DataPath(std::string_view rel) {
  std::vector<fs::path> roots;
  if (const char* env = std::getenv("RECON_DATA"); env != nullptr && *env != '\0') roots.emplace_back(env);
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    roots.push_back(exe.parent_path().parent_path() / "datasets");                  // a build tree
    roots.push_back(exe.parent_path().parent_path() / "share" / "recon");           // an install
  }
  const fs::path source = fs::path(RECON_SOURCE_ROOT) / "datasets";
  roots.push_back(source);
  for (const fs::path& r : roots) {
    fs::path p = r / std::string(rel);
    if (fs::exists(p, ec)) return p.string();
  }
  return (source / std::string(rel)).string();
}

}  // namespace recon::cli
