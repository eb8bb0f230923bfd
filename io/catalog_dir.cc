#include "io/catalog_dir.h"

#include "domains/olm/loader.h"
#include "io/disk_file_source.h"
#include "io/thread_pool_executor.h"

namespace recon::io {

absl::StatusOr<std::unique_ptr<LoadedCatalog>> LoadCatalogDir(const std::string& dir, bool keep_payloads) {
  DiskFileSource source(dir);
  ThreadPoolExecutor pool(2);
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

}  // namespace recon::io
