// Kubernetes API semantics over the ObjectStore: create, update,
// updateStatus and delete with uid, resourceVersion, generation,
// timestamps, finalizers and the status subresource. Every change yields the
// watch event a client would see; a no-op write changes nothing and yields
// none (as the API server does). Azure objects get ARM get/put semantics.
#ifndef RECON_ADAPTERS_SIM_API_H_
#define RECON_ADAPTERS_SIM_API_H_

#include <string>
#include <vector>

#include "adapters/sim/object_store.h"

namespace recon::sim {

struct ApiResult {
  bool ok = true;
  int status = 200;
  std::string error;                       // "<Reason>: <message>" when !ok
  std::vector<store::EventRecord> events;  // watch events, in order
};

class Api {
 public:
  explicit Api(ObjectStore& objects) : objects_(objects) {}

  ApiResult Create(const Json& object, int64_t now_ns);
  // Whole-object replace; status is kept from the stored object. With a
  // metadata.resourceVersion it must match (else 409 Conflict); without one
  // the update is unconditional.
  ApiResult Update(const Json& object, int64_t now_ns);
  // Replaces status only; never bumps generation.
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

  ObjectStore& objects_;
};

// Equality that ignores the order of object keys (ordered_json's == does not).
bool SameJson(const Json& a, const Json& b);

// "imagestreams.image.openshift.io", as API errors name resources.
std::string ResourceName(const ObjectKey& key);
ApiResult Failure(int status, std::string_view reason, std::string_view message);

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_API_H_
