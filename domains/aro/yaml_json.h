// Generic YAML <-> JSON tree for the alertmanager config, behaving like
// the sigs.k8s.io/yaml round trip upstream uses: plain scalars resolve to
// null/bool/int/float (YAML 1.1), map keys are emitted sorted, block style.
#ifndef RECON_DOMAINS_ARO_YAML_JSON_H_
#define RECON_DOMAINS_ARO_YAML_JSON_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/json.h"

namespace recon::aro {

absl::StatusOr<engine::Json> ParseYaml(std::string_view text);
std::string EmitYaml(const engine::Json& value);

}  // namespace recon::aro

#endif  // RECON_DOMAINS_ARO_YAML_JSON_H_
