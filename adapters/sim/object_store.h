// The simulated cluster's objects: one map keyed by (group, kind, namespace,
// name), a cluster-wide resourceVersion counter and deterministic uids. API
// semantics live in api.h; this is plain storage plus the watch event form.
#ifndef RECON_ADAPTERS_SIM_OBJECT_STORE_H_
#define RECON_ADAPTERS_SIM_OBJECT_STORE_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "engine/json.h"
#include "engine/world.h"
#include "records/record.h"

namespace recon::sim {

using engine::Json;
using engine::ObjectKey;

// (group, kind, namespace, name) of an object body; InvalidArgument naming
// the missing field when apiVersion, kind or metadata.name is absent.
absl::StatusOr<ObjectKey> KeyOf(const Json& object);
std::string KeyString(const ObjectKey& key);  // "Kind ns/name" for messages

// The event a watch delivers for `object` (the whole object as the body).
records::EventRecord WatchEvent(records::EventType type, const Json& object, int64_t time_ns);

class ObjectStore {
 public:
  explicit ObjectStore(uint64_t seed = 1) : uid_state_(seed * 0x9E3779B97F4A7C15ull + 1) {}

  const Json* Get(const ObjectKey& key) const;
  void Put(const ObjectKey& key, Json object) { objects_[key] = std::move(object); }
  void Erase(const ObjectKey& key) { objects_.erase(key); }
  const std::map<ObjectKey, Json>& objects() const { return objects_; }

  // The next value of the cluster-wide counter, as Kubernetes writes it.
  std::string NextResourceVersion() { return std::to_string(++resource_version_); }
  uint64_t resource_version() const { return resource_version_; }
  // A UUID-shaped id, deterministic from the seed.
  std::string NextUid();

 private:
  std::map<ObjectKey, Json> objects_;
  uint64_t resource_version_ = 0;
  uint64_t uid_state_;
};

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_OBJECT_STORE_H_
