// Normalized FBC output (opm render ordering, §1.6): per package sorted by
// name: the package, channels, bundles (sorted by name), others, then
// deprecations; package-less others last. Blobs whose package is empty are
// dropped like upstream's writer does.
#ifndef RECON_DOMAINS_OLM_CATALOG_RENDER_H_
#define RECON_DOMAINS_OLM_CATALOG_RENDER_H_

#include <string>

#include "absl/status/statusor.h"
#include "domains/olm/catalog/declcfg.h"
#include "domains/olm/catalog/node.h"

namespace recon::olm {

// One compact JSON blob per line.
absl::StatusOr<std::string> RenderJson(const DeclarativeConfig& cfg);
// "---" before each document, keys sorted.
absl::StatusOr<std::string> RenderYaml(const DeclarativeConfig& cfg);

// Block-style YAML for a tree (keys sorted), `indent` spaces deep.
void AppendYaml(std::string* out, const Node& n, int indent);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CATALOG_RENDER_H_
