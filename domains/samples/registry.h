// The samples registry override (reference §11) and the cluster image
// config's registry rules (§5.1).
#ifndef RECON_DOMAINS_SAMPLES_REGISTRY_H_
#define RECON_DOMAINS_SAMPLES_REGISTRY_H_

#include <string>
#include <string_view>
#include <vector>

#include "domains/samples/inventory.h"
#include "engine/json.h"

namespace recon::samples {

using engine::Json;

// Rewrites one image reference for override `registry` (empty: unchanged).
std::string OverrideRegistry(std::string_view ref, std::string_view registry);
// Applies the override to an ImageStream object in place:
// spec.dockerImageRepository (if non-empty) and DockerImage tags.
void ApplyRegistryOverride(Json& image_stream, std::string_view registry);
// Every DockerImage tag of every imagestream of the inventory, after the
// override: what a disconnected cluster mirrors for the samples.
std::vector<std::string> MirrorImages(const Inventory& inventory, std::string_view registry);

// Whether the `config.openshift.io/v1` Image `cluster` (its whole object;
// null when absent) blocks imagestreams from `registry` ("" = the defaults).
bool ImageConfigBlocks(const Json& image_config, std::string_view registry);

}  // namespace recon::samples

#endif  // RECON_DOMAINS_SAMPLES_REGISTRY_H_
