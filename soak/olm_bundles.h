// The bundles of a real file-based catalog as the simulated cluster's
// stand-in needs them (adapters/sim/olm_stand_in.h): each CSV's package,
// version, image, replaces and owned CRDs.
#ifndef RECON_SOAK_OLM_BUNDLES_H_
#define RECON_SOAK_OLM_BUNDLES_H_

#include <memory>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "adapters/sim/olm_stand_in.h"
#include "domains/olm/resolve/catalog_index.h"

namespace recon::soak {

// Every bundle of `packages` (every package when null).
std::shared_ptr<sim::OlmBundles> OlmBundlesOf(const olm::CatalogIndex& index,
                                              const std::set<std::string>* packages = nullptr);

}  // namespace recon::soak

#endif  // RECON_SOAK_OLM_BUNDLES_H_
