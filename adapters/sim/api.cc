#include "adapters/sim/api.h"

#include <algorithm>
#include <cctype>

#include "adapters/sim/azure.h"
#include "base/strings.h"
#include "engine/time_format.h"

namespace recon::sim {
namespace {

// Fields the server owns: a client's update cannot change them.
constexpr std::string_view kServerMeta[] = {"uid", "creationTimestamp", "deletionTimestamp", "generation",
                                            "resourceVersion"};

bool HasFinalizers(const Json& object) {
  const Json& f = engine::Path(object, {"metadata", "finalizers"});
  return f.is_array() && !f.empty();
}

bool Terminating(const Json& object) {
  return !engine::GetString(object, {"metadata", "deletionTimestamp"}).empty();
}

// Everything but metadata and status: what bumps generation.
bool SpecEqual(const Json& a, const Json& b) {
  Json x = a, y = b;
  x.erase("metadata");
  x.erase("status");
  y.erase("metadata");
  y.erase("status");
  return SameJson(x, y);
}

int64_t Generation(const Json& object) {
  const Json& g = engine::Path(object, {"metadata", "generation"});
  return g.is_number_integer() ? g.get<int64_t>() : 0;
}

}  // namespace

bool SameJson(const Json& a, const Json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it) {
      auto other = b.find(it.key());
      if (other == b.end() || !SameJson(it.value(), *other)) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!SameJson(a[i], b[i])) return false;
    }
    return true;
  }
  return a == b;
}

std::string ResourceName(const ObjectKey& key) {
  std::string plural = key.kind;
  std::transform(plural.begin(), plural.end(), plural.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  plural += plural.ends_with("s") ? "es" : "s";
  return key.group.empty() ? plural : recon::StrCat(plural, ".", key.group);
}

ApiResult Failure(int status, std::string_view reason, std::string_view message) {
  ApiResult r;
  r.ok = false;
  r.status = status;
  r.error = recon::StrCat(reason, ": ", message);
  return r;
}

ApiResult Api::Apply(std::string_view verb, const Json& object, int64_t now_ns) {
  if (verb == "create") return Create(object, now_ns);
  if (verb == "update") return Update(object, now_ns);
  if (verb == "updateStatus") return UpdateStatus(object, now_ns);
  if (verb == "delete") return Delete(object, now_ns);
  return Failure(405, "MethodNotAllowed", recon::StrCat("verb \"", verb, "\" is not an object write"));
}

void Api::Commit(const ObjectKey& key, Json next, bool existed, int64_t now_ns, ApiResult* r) {
  next["metadata"]["resourceVersion"] = objects_.NextResourceVersion();
  if (Terminating(next) && !HasFinalizers(next)) {
    objects_.Erase(key);
    r->events.push_back(WatchEvent(store::EventType::kDeleted, next, now_ns));
    return;
  }
  r->events.push_back(
      WatchEvent(existed ? store::EventType::kModified : store::EventType::kAdded, next, now_ns));
  objects_.Put(key, std::move(next));
}

ApiResult Api::ServerWrite(const ObjectKey& key, Json next, int64_t now_ns) {
  const Json* current = objects_.Get(key);
  if (current == nullptr) {
    Json& meta = next["metadata"];
    meta["uid"] = objects_.NextUid();
    if (!meta.contains("generation")) meta["generation"] = 1;
    meta["creationTimestamp"] = engine::FormatRfc3339Seconds(now_ns);
  } else {
    Json cmp = next;
    cmp["metadata"]["resourceVersion"] = engine::Path(*current, {"metadata", "resourceVersion"});
    if (SameJson(cmp, *current)) return ApiResult{};
  }
  ApiResult r;
  r.status = current == nullptr ? 201 : 200;
  Commit(key, std::move(next), current != nullptr, now_ns, &r);
  return r;
}

ApiResult Api::Create(const Json& object, int64_t now_ns) {
  Json obj = object;
  if (obj.is_object() && engine::GetString(obj, {"metadata", "name"}).empty()) {
    std::string prefix = engine::GetString(obj, {"metadata", "generateName"});
    if (!prefix.empty()) obj["metadata"]["name"] = prefix + objects_.NextUid().substr(0, 5);
  }
  auto key = KeyOf(obj);
  if (!key.ok()) return Failure(422, "Invalid", Sv(key.status().message()));
  if (IsAzure(*key)) return AzureApply(objects_, "create", *key, obj, now_ns);
  if (objects_.Get(*key) != nullptr) {
    return Failure(409, "AlreadyExists",
                   recon::StrCat(ResourceName(*key), " \"", key->name, "\" already exists"));
  }
  Json& meta = obj["metadata"];
  for (auto f : kServerMeta) meta.erase(std::string(f));
  meta["uid"] = objects_.NextUid();
  meta["generation"] = 1;
  meta["creationTimestamp"] = engine::FormatRfc3339Seconds(now_ns);
  obj.erase("status");  // the status subresource: create does not set it
  ApiResult r;
  r.status = 201;
  Commit(*key, std::move(obj), false, now_ns, &r);
  return r;
}

ApiResult Api::Update(const Json& object, int64_t now_ns) {
  auto key = KeyOf(object);
  if (!key.ok()) return Failure(422, "Invalid", Sv(key.status().message()));
  if (IsAzure(*key)) return AzureApply(objects_, "update", *key, object, now_ns);
  const Json* current = objects_.Get(*key);
  if (current == nullptr) {
    return Failure(404, "NotFound", recon::StrCat(ResourceName(*key), " \"", key->name, "\" not found"));
  }
  std::string rv = engine::GetString(object, {"metadata", "resourceVersion"});
  if (!rv.empty() && rv != engine::GetString(*current, {"metadata", "resourceVersion"})) {
    return Failure(409, "Conflict",
                   recon::StrCat("Operation cannot be fulfilled on ", ResourceName(*key), " \"", key->name,
                                 "\": the object has been modified; please apply your changes to the latest "
                                 "version and try again"));
  }
  Json next = object;
  Json& meta = next["metadata"];
  const Json& cur_meta = (*current)["metadata"];
  for (auto f : kServerMeta) {
    std::string k(f);
    if (cur_meta.contains(k)) {
      meta[k] = cur_meta[k];
    } else {
      meta.erase(k);
    }
  }
  next.erase("status");
  if (current->contains("status")) next["status"] = (*current)["status"];
  if (!SpecEqual(next, *current)) meta["generation"] = Generation(*current) + 1;
  Json cmp = next;
  cmp["metadata"]["resourceVersion"] =
      cur_meta.contains("resourceVersion") ? cur_meta["resourceVersion"] : Json();
  if (SameJson(cmp, *current)) return ApiResult{};  // a no-op: no new resourceVersion, no event
  ApiResult r;
  Commit(*key, std::move(next), true, now_ns, &r);
  return r;
}

ApiResult Api::UpdateStatus(const Json& object, int64_t now_ns) {
  auto key = KeyOf(object);
  if (!key.ok()) return Failure(422, "Invalid", Sv(key.status().message()));
  if (IsAzure(*key)) return AzureApply(objects_, "updateStatus", *key, object, now_ns);
  const Json* current = objects_.Get(*key);
  if (current == nullptr) {
    return Failure(404, "NotFound", recon::StrCat(ResourceName(*key), " \"", key->name, "\" not found"));
  }
  std::string rv = engine::GetString(object, {"metadata", "resourceVersion"});
  if (!rv.empty() && rv != engine::GetString(*current, {"metadata", "resourceVersion"})) {
    return Failure(409, "Conflict",
                   recon::StrCat("Operation cannot be fulfilled on ", ResourceName(*key), " \"", key->name,
                                 "\": the object has been modified; please apply your changes to the latest "
                                 "version and try again"));
  }
  Json next = *current;
  next.erase("status");
  if (object.contains("status")) next["status"] = object["status"];
  if (SameJson(next, *current)) return ApiResult{};
  ApiResult r;
  Commit(*key, std::move(next), true, now_ns, &r);
  return r;
}

ApiResult Api::Delete(const Json& object, int64_t now_ns) {
  auto key = KeyOf(object);
  if (!key.ok()) return Failure(422, "Invalid", Sv(key.status().message()));
  if (IsAzure(*key)) return AzureApply(objects_, "delete", *key, object, now_ns);
  const Json* current = objects_.Get(*key);
  if (current == nullptr) {
    return Failure(404, "NotFound", recon::StrCat(ResourceName(*key), " \"", key->name, "\" not found"));
  }
  ApiResult r;
  if (HasFinalizers(*current)) {
    if (Terminating(*current)) return r;  // already being deleted
    Json next = *current;
    next["metadata"]["deletionTimestamp"] = engine::FormatRfc3339Seconds(now_ns);
    next["metadata"]["deletionGracePeriodSeconds"] = 0;
    next["metadata"]["generation"] = Generation(*current) + 1;
    Commit(*key, std::move(next), true, now_ns, &r);
    return r;
  }
  Json last = *current;
  last["metadata"]["resourceVersion"] = objects_.NextResourceVersion();
  objects_.Erase(*key);
  r.events.push_back(WatchEvent(store::EventType::kDeleted, last, now_ns));
  return r;
}

}  // namespace recon::sim
