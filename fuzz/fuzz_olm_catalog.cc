// Fuzzes the FBC catalog loader (domains/olm/catalog/loader.h) on one file, which it
// sniffs as a JSON stream ('{' first) or multi-document YAML, then builds and
// validates the model and every channel graph as the olm reducer does with a
// catalog Content event. Any bytes must load or give an error.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "domains/olm/catalog/error_tree.h"
#include "domains/olm/catalog/graph.h"
#include "domains/olm/catalog/loader.h"
#include "domains/olm/catalog/model.h"
#include "engine/file_source.h"

namespace olm = recon::olm;
namespace engine = recon::engine;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  engine::MemoryFileSource source({{"pkg/catalog.yaml", std::move(text)}});
  olm::LoadOptions options;
  auto cfg = olm::LoadCatalog(source, options);
  if (!cfg.ok()) return 0;
  olm::ErrorNode errors;
  olm::Model model = olm::BuildModel(*cfg, &errors);
  (void)errors.Render();
  (void)olm::BuildAllGraphs(model);
  return 0;
}
