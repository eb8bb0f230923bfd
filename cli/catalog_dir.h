// A file-based catalog directory loaded from disk (parallel parse), turned
// into the model and validated: what `recon catalog` and `recon
// mirror-list` start from. Wiring (io/'s disk source and thread pool
// under olm's loader), so it lives in cli/.
#ifndef RECON_CLI_CATALOG_DIR_H_
#define RECON_CLI_CATALOG_DIR_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "domains/olm/catalog/declcfg.h"
#include "domains/olm/catalog/error_tree.h"
#include "domains/olm/catalog/model.h"

namespace recon::cli {

struct LoadedCatalog {
  std::string dir;
  olm::DeclarativeConfig cfg;
  olm::Model model;  // points into cfg: the struct stays where it is built
  olm::ErrorNode errors;
};

// keep_payloads: keep the bytes of olm.bundle.object / olm.csv.metadata
// values readable (related images need them; the graph does not).
absl::StatusOr<std::unique_ptr<LoadedCatalog>> LoadCatalogDir(const std::string& dir, bool keep_payloads);

// The same from files already in memory (a Content event's path → text);
// `label` names it in messages (e.g. "olm/catalog/ns/name").
absl::StatusOr<std::unique_ptr<LoadedCatalog>> LoadCatalogFiles(
    const std::string& label, const std::vector<std::pair<std::string, std::string>>& files,
    bool keep_payloads);

}  // namespace recon::cli

#endif  // RECON_CLI_CATALOG_DIR_H_
