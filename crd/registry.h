// The CustomResourceDefinitions a simulated API server serves, and what a
// real kube-apiserver does with a write to one of them: prune fields the
// structural schema does not declare, apply `default:`s, validate against
// `openAPIV3Schema` and the `x-kubernetes-validations` CEL rules, and answer
// the field errors in the server's own wording. Pure: no I/O but AddDir.
#ifndef RECON_CRD_REGISTRY_H_
#define RECON_CRD_REGISTRY_H_

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/json.h"

namespace recon::crd {

using engine::Json;

// One field error, as k8s.io/apimachinery's field.Error renders it.
struct FieldError {
  // The Status cause reason: "FieldValueRequired", "FieldValueInvalid",
  // "FieldValueNotSupported", "FieldValueTypeInvalid", "FieldValueTooLong",
  // "FieldValueTooMany", "FieldValueDuplicate", "FieldValueForbidden".
  std::string reason;
  std::string field;    // "spec.catalogHealth[0].lastUpdated"
  std::string message;  // "Required value", "Unsupported value: \"x\": supported values: \"a\", \"b\""
  // "<field>: <message>", the form the Status message lists.
  std::string ToString() const;
};

class Schema;  // one version's compiled openAPIV3Schema (schema.h)

// One served version of a CRD.
struct Kind {
  std::string group, version, kind, plural, singular, list_kind;
  std::vector<std::string> short_names, categories;
  bool namespaced = true;
  bool status_subresource = false;
  bool storage = false;
  Json printer_columns;  // additionalPrinterColumns as the CRD declares them (may be null)
  std::shared_ptr<const Schema> schema;
};

class Registry {
 public:
  // Every CRD in a (multi-document) YAML or JSON text; `source` names it in
  // errors. A schema or CEL rule that cannot be compiled is an error naming
  // the source, the CRD, the version, the field path and the rule: never
  // ignored silently.
  absl::Status AddYaml(std::string_view text, std::string_view source);
  // Every *.yaml, *.yml and *.json file in `dir`, in name order.
  absl::Status AddDir(const std::string& dir);
  // The real CRDs shipped in the binary (crd/data/, see its README).
  static absl::StatusOr<Registry> Builtin();

  const Kind* Find(std::string_view group, std::string_view version, std::string_view kind) const;
  const Kind* FindByPlural(std::string_view group, std::string_view version, std::string_view plural) const;
  // Every kind, ordered by (group, kind, version).
  std::vector<const Kind*> kinds() const;

  // What the server does to `object` (a whole object of `kind`) before it
  // stores it: prunes undeclared fields (metadata is the caller's: only
  // apiVersion, kind and metadata are kept at the top besides the schema's
  // properties), applies defaults, then validates the schema and the CEL
  // rules (`old` is the stored object for transition rules, null on a
  // create). Field errors in the server's order; empty means valid.
  // `dropped`: the pruned fields' paths (Schema::Prune), which a server
  // asked for no field validation warns about (`unknown field "spec.x"`).
  std::vector<FieldError> Admit(const Kind& kind, Json& object, const Json* old,
                                std::vector<std::string>* dropped = nullptr) const;

 private:
  std::map<std::string, Kind> kinds_;  // "<group>/<version>/<Kind>"
};

// The 422 message a real server gives: `Subscription.operators.coreos.com
// "x" is invalid: spec: Required value`, or `... is invalid: [a, b]` for
// more than one error.
std::string InvalidMessage(const Kind& kind, std::string_view name, const std::vector<FieldError>& errors);

}  // namespace recon::crd

#endif  // RECON_CRD_REGISTRY_H_
