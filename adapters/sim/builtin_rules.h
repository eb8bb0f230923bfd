// What a real API server checks on the types it serves without a CRD:
// kube-apiserver's built-ins (Namespace, ConfigMap, Secret, Deployment, ...)
// and openshift-apiserver's ImageStream and Template. Per type: scope, the
// name rule, whether an update may omit resourceVersion
// (AllowUnconditionalUpdate), whether status is a subresource; and the
// decode (400) and validation (422) errors in the servers' own wording.
#ifndef RECON_ADAPTERS_SIM_BUILTIN_RULES_H_
#define RECON_ADAPTERS_SIM_BUILTIN_RULES_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "crd/registry.h"
#include "engine/json.h"

namespace recon::sim {

using engine::Json;

enum class NameRule { kNone, kSubdomain, kLabel, kPathSegment };

struct BuiltinType {
  std::string_view group, kind, plural;
  bool namespaced = true;
  NameRule name = NameRule::kSubdomain;
  bool unconditional_update = true;  // the strategy's AllowUnconditionalUpdate
  bool status_subresource = false;
  bool has_status = false;  // a type without a status field drops one sent
};

// The rules for (group, kind), or nullptr for a type the server does not know
// (a scenario's schemaless kind: no checks).
const BuiltinType* FindBuiltin(std::string_view group, std::string_view kind);

// The checks every server makes on ObjectMeta: a name (or generateName) that
// fits `rule`, a namespace for namespaced types and none for cluster-scoped
// ones. `object` is after name generation.
std::vector<crd::FieldError> ValidateMeta(const Json& object, bool namespaced, NameRule rule);

// What decoding the body does: stringData merged into data (base64) for a
// Secret; non-string ConfigMap/Secret values and bad base64 are errors (the
// server answers 400 BadRequest with the returned message).
absl::Status DecodeBuiltin(const BuiltinType& type, Json& object);

// The type's own validation (ConfigMap/Secret keys and sizes, immutable
// Secret type); `old` is null on a create.
std::vector<crd::FieldError> ValidateBuiltin(const BuiltinType& type, const Json& object, const Json* old);

// `ConfigMap "x" is invalid: ...`, as apimachinery's NewInvalid words it;
// `qualified_kind` is "ConfigMap", "Deployment.apps" or "subscriptions.operators.coreos.com".
std::string InvalidMessageFor(std::string_view qualified_kind, std::string_view name,
                              const std::vector<crd::FieldError>& errors);

// The DNS-1123 checks (apimachinery's validation messages), exposed for tests.
std::vector<std::string> IsDns1123Subdomain(std::string_view value);
std::vector<std::string> IsDns1123Label(std::string_view value);

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_BUILTIN_RULES_H_
