// The manifests a bundle carries inline: its olm.bundle.object properties
// (base64 JSON in `data`), decoded.
#ifndef RECON_DOMAINS_OLM_CATALOG_BUNDLE_OBJECTS_H_
#define RECON_DOMAINS_OLM_CATALOG_BUNDLE_OBJECTS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "domains/olm/catalog/declcfg.h"
#include "engine/json.h"

namespace recon::olm {

// One entry per olm.bundle.object property, in property order: the object,
// or why it could not be read (payloads dropped at load, no data, not
// base64, not JSON).
std::vector<absl::StatusOr<engine::Json>> DecodeBundleObjects(const DeclarativeConfig& cfg, const Bundle& bundle);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CATALOG_BUNDLE_OBJECTS_H_
