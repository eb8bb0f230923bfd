#include "cli/catalog_dir.h"

#include <map>

#include "domains/olm/catalog/loader.h"
#include "io/disk_file_source.h"
#include "io/thread_pool_executor.h"

namespace recon::cli {

namespace {

absl::StatusOr<std::unique_ptr<LoadedCatalog>> Load(const engine::FileSource& source, const std::string& dir,
                                                    bool keep_payloads) {
  io::ThreadPoolExecutor pool(2);
  olm::LoadOptions opts;
  opts.executor = &pool;
  opts.keep_payloads = keep_payloads;
  auto cfg = olm::LoadCatalog(source, opts);
  if (!cfg.ok()) return cfg.status();
  auto l = std::make_unique<LoadedCatalog>();
  l->dir = dir;
  l->cfg = std::move(*cfg);
  l->model = olm::BuildModel(l->cfg, &l->errors);
  return l;
}

}  // namespace

absl::StatusOr<std::unique_ptr<LoadedCatalog>> LoadCatalogDir(const std::string& dir, bool keep_payloads) {
  return Load(io::DiskFileSource(dir), dir, keep_payloads);
}

absl::StatusOr<std::unique_ptr<LoadedCatalog>> LoadCatalogFiles(
    const std::string& label, const std::vector<std::pair<std::string, std::string>>& files,
    bool keep_payloads) {
  std::map<std::string, std::string> map(files.begin(), files.end());
  return Load(engine::MemoryFileSource(std::move(map)), label, keep_payloads);
}

}  // namespace recon::cli
