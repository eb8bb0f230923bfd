// Generic YAML <-> JSON tree, behaving like the sigs.k8s.io/yaml round trip
// ARO's alertmanager webhook uses: plain scalars resolve to null/bool/int/
// float (YAML 1.1), map keys are emitted sorted, block style. In the engine
// core because the redactor's Secret views (runtime/) parse with it too.
#ifndef RECON_ENGINE_YAML_JSON_H_
#define RECON_ENGINE_YAML_JSON_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/json.h"

namespace recon::engine {

absl::StatusOr<engine::Json> ParseYaml(std::string_view text);
std::string EmitYaml(const engine::Json& value);

}  // namespace recon::engine

#endif  // RECON_ENGINE_YAML_JSON_H_
