#include "adapters/sim/object_store.h"

#include <cstdio>

#include "base/strings.h"
#include "engine/jsonl_reader.h"

namespace recon::sim {

absl::StatusOr<ObjectKey> KeyOf(const Json& object) {
  if (!object.is_object()) return absl::InvalidArgumentError("object: expected a JSON object");
  std::string api_version = engine::GetString(object, {"apiVersion"});
  if (api_version.empty()) return absl::InvalidArgumentError("object: apiVersion is missing");
  ObjectKey key;
  std::string version;
  engine::SplitApiVersion(api_version, &key.group, &version);
  key.kind = engine::GetString(object, {"kind"});
  if (key.kind.empty()) return absl::InvalidArgumentError("object: kind is missing");
  key.ns = engine::GetString(object, {"metadata", "namespace"});
  key.name = engine::GetString(object, {"metadata", "name"});
  if (key.name.empty()) {
    return absl::InvalidArgumentError(recon::StrCat("object ", key.kind, ": metadata.name is missing"));
  }
  return key;
}

std::string KeyString(const ObjectKey& key) {
  return recon::StrCat(key.kind, " ", key.ns.empty() ? "" : key.ns + "/", key.name);
}

records::EventRecord WatchEvent(records::EventType type, const Json& object, int64_t time_ns) {
  records::EventRecord r;
  r.time_ns = time_ns;
  r.type = type;
  engine::SplitApiVersion(engine::GetString(object, {"apiVersion"}), &r.object.group, &r.object.version);
  r.object.kind = engine::GetString(object, {"kind"});
  r.object.ns = engine::GetString(object, {"metadata", "namespace"});
  r.object.name = engine::GetString(object, {"metadata", "name"});
  r.object.uid = engine::GetString(object, {"metadata", "uid"});
  r.object.resource_version = engine::GetString(object, {"metadata", "resourceVersion"});
  r.body = engine::Dump(object);
  return r;
}

const Json* ObjectStore::Get(const ObjectKey& key) const {
  auto it = objects_.find(key);
  return it == objects_.end() ? nullptr : &it->second;
}

std::string ObjectStore::NextUid() {
  // splitmix64: two draws make 128 bits, printed in the 8-4-4-4-12 form.
  auto next = [this]() {
    uint64_t z = (uid_state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  uint64_t a = next(), b = next();
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xffff),
                static_cast<unsigned>(b >> 48), static_cast<unsigned long long>(b & 0xffffffffffffull));
  return buf;
}

}  // namespace recon::sim
