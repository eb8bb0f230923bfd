// Kubernetes API semantics over the ObjectStore: create, update,
// updateStatus and delete with uid, resourceVersion, generation,
// timestamps, finalizers and the status subresource. Every change yields the
// watch event a client would see; a no-op write changes nothing and yields
// none (as the API server does). Azure objects get ARM get/put semantics.
#ifndef RECON_ADAPTERS_SIM_API_H_
#define RECON_ADAPTERS_SIM_API_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adapters/sim/builtin_rules.h"
#include "adapters/sim/object_store.h"
#include "crd/registry.h"

namespace recon::sim {

struct ApiResult {
  bool ok = true;
  int status = 200;
  std::string error;                       // "<Reason>: <message>" when !ok
  std::vector<records::EventRecord> events;  // watch events, in order
  // A 422 Invalid: the field errors and the Status details' group and kind
  // (the kind is the resource's plural for a missing resourceVersion, as
  // the real server words it).
  std::vector<crd::FieldError> causes;
  std::string details_group, details_kind;
  // A write that changed nothing (no event): the object's unchanged
  // metadata, as a real server answers it.
  std::string unchanged_rv, unchanged_uid;
  // Warnings a real server sends with its answer (`Warning: 299` headers):
  // `unknown field "spec.x"` per field a custom resource's schema pruned
  // (a client that asks for no field validation gets Warn).
  std::vector<std::string> warnings;
};

// What the server checks. `crds` are the CRDs served with real semantics;
// with `validate` off no schema or built-in checks run (benchmarks), the
// subresource and resourceVersion rules still hold.
struct ApiOptions {
  std::shared_ptr<const crd::Registry> crds;
  bool validate = true;
  // The real CRDs embedded in the binary (crd::Registry::Builtin, loaded
  // once per process), validation on.
  static ApiOptions Default();
};

// How the server treats one object's type.
struct TypeRules {
  const crd::Kind* crd = nullptr;
  const BuiltinType* builtin = nullptr;
  bool status_subresource = true;    // schemaless kinds: as before (status is a subresource)
  bool unconditional_update = true;  // an update may omit resourceVersion
};

class Api {
 public:
  explicit Api(ObjectStore& objects, ApiOptions options = ApiOptions::Default());

  TypeRules RulesFor(const ObjectKey& key, const Json& object) const;
  const ApiOptions& options() const { return options_; }

  ApiResult Create(const Json& object, int64_t now_ns);
  // Whole-object replace; status is kept from the stored object when the
  // type has a status subresource. With a metadata.resourceVersion it must
  // match (else 409 Conflict); without one the update is unconditional only
  // for types whose real strategy allows it (422 Invalid otherwise).
  ApiResult Update(const Json& object, int64_t now_ns);
  // Replaces status only; never bumps generation. 404 for a type without a
  // status subresource.
  ApiResult UpdateStatus(const Json& object, int64_t now_ns);
  // With finalizers: sets deletionTimestamp; the object goes when an update
  // removes the last finalizer.
  ApiResult Delete(const Json& object, int64_t now_ns);

  // A write by a server-side controller (the image importer, a user edit of
  // status): stores `next` as is, filling uid/creationTimestamp/generation
  // for a new object, and bumps resourceVersion. No-op writes yield nothing.
  ApiResult ServerWrite(const ObjectKey& key, Json next, int64_t now_ns);

  // Dispatches on an action verb (create/update/updateStatus/delete).
  ApiResult Apply(std::string_view verb, const Json& object, int64_t now_ns);

  ObjectStore& objects() { return objects_; }

 private:
  // Stores `next` in place of `current` (or deletes it when a terminating
  // object lost its last finalizer) and records the watch event.
  void Commit(const ObjectKey& key, Json next, bool existed, int64_t now_ns, ApiResult* r);
  // Decoding and validation as the real server: a failure result, or
  // nullopt with `object` pruned and defaulted (the warnings for what was
  // pruned appended to `warnings`, when given).
  std::optional<ApiResult> Admit(const ObjectKey& key, const TypeRules& rules, Json& object, const Json* old,
                                 std::vector<std::string>* warnings = nullptr) const;
  // The missing-resourceVersion refusal for a type that needs one.
  std::optional<ApiResult> RequireResourceVersion(const ObjectKey& key, const TypeRules& rules,
                                                  const Json& object) const;

  ObjectStore& objects_;
  ApiOptions options_;
};

// Equality that ignores the order of object keys (ordered_json's == does not).
bool SameJson(const Json& a, const Json& b);

// "imagestreams.image.openshift.io", as API errors name resources.
std::string ResourceName(const ObjectKey& key);
ApiResult Failure(int status, std::string_view reason, std::string_view message);

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_API_H_
