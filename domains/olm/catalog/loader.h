// Loads a file-based catalog into a DeclarativeConfig (operator-registry's
// LoadFS): walk, .indexignore, JSON-or-YAML sniffing, Meta envelope, the
// four known schemas; files are parsed as independent tasks on the caller's
// executor (sequential by default), results merged in walk order so output
// never depends on thread timing.
#ifndef RECON_DOMAINS_OLM_CATALOG_LOADER_H_
#define RECON_DOMAINS_OLM_CATALOG_LOADER_H_

#include <string>

#include "absl/status/statusor.h"
#include "domains/olm/catalog/declcfg.h"
#include "domains/olm/catalog/node.h"
#include "engine/executor.h"
#include "engine/file_source.h"

namespace recon::olm {

struct LoadOptions {
  // Runs the per-file parse tasks; null: one after another on this thread.
  const engine::Executor* executor = nullptr;
  // Keep file bytes so payload spans stay readable (render needs them).
  bool keep_payloads = true;
  // Cut payload values out before YAML parsing (off = parse everything; the
  // result is the same, only slower).
  bool excise_payloads = true;
};

absl::StatusOr<DeclarativeConfig> LoadCatalog(const engine::FileSource& source,
                                              const LoadOptions& options = {});

// One blob tree → cfg (exposed for tests). Errors carry no location.
absl::Status AddBlob(Node&& blob, const Location& loc, DeclarativeConfig* cfg);

// Resolves a span to a tree (parses its JSON or YAML text).
absl::StatusOr<Node> ParseSpan(const DeclarativeConfig& cfg, const Span& span);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CATALOG_LOADER_H_
