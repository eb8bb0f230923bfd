// YAML (1.2 core schema, multi-document) to JSON trees, for CRD manifests.
// Plain scalars resolve to null, bool, integer and float as Kubernetes'
// sigs.k8s.io/yaml does for these files; quoted scalars stay strings.
#ifndef RECON_CRD_YAML_JSON_H_
#define RECON_CRD_YAML_JSON_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/json.h"

namespace recon::crd {

// Every non-empty document in `text`, in order; `source` names it in errors.
absl::StatusOr<std::vector<engine::Json>> YamlDocumentsToJson(std::string_view text, std::string_view source);

}  // namespace recon::crd

#endif  // RECON_CRD_YAML_JSON_H_
