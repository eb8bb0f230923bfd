#include "adapters/sim/api.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <mutex>

#include "adapters/sim/azure.h"
#include "base/strings.h"
#include "engine/time_format.h"

namespace recon::sim {
namespace {

ApiResult Unchanged(const Json& current) {
  ApiResult r;
  r.unchanged_rv = engine::GetString(current, {"metadata", "resourceVersion"});
  r.unchanged_uid = engine::GetString(current, {"metadata", "uid"});
  return r;
}

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

// Everything but metadata (and status, when it is a subresource): what
// bumps generation (the custom resource strategy's rule).
bool SpecEqual(const Json& a, const Json& b, bool status_subresource) {
  Json x = a, y = b;
  x.erase("metadata");
  y.erase("metadata");
  if (status_subresource) {
    x.erase("status");
    y.erase("status");
  }
  return SameJson(x, y);
}

std::string VersionOf(const Json& object) {
  std::string av = engine::GetString(object, {"apiVersion"});
  size_t slash = av.find('/');
  return slash == std::string::npos ? av : av.substr(slash + 1);
}

ApiResult Invalid(std::string_view message, std::vector<crd::FieldError> causes, std::string group,
                  std::string kind) {
  ApiResult r = Failure(422, "Invalid", message);
  r.causes = std::move(causes);
  r.details_group = std::move(group);
  r.details_kind = std::move(kind);
  return r;
}

std::string ConflictMessage(const ObjectKey& key) {
  return recon::StrCat("Operation cannot be fulfilled on ", ResourceName(key), " \"", key.name,
                       "\": the object has been modified; please apply your changes to the latest "
                       "version and try again");
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

ApiOptions ApiOptions::Default() {
  static std::once_flag once;
  static std::shared_ptr<const crd::Registry> builtin;
  std::call_once(once, [] {
    auto r = crd::Registry::Builtin();
    if (r.ok()) {
      builtin = std::make_shared<const crd::Registry>(std::move(*r));
    } else {
      // The embedded CRDs are part of the build: a failure is a bug the
      // sim's tests catch (CRD kinds then go unvalidated).
      std::fprintf(stderr, "recon sim: the built-in CRDs did not load: %s\n", r.status().ToString().c_str());
    }
  });
  ApiOptions o;
  o.crds = builtin;
  return o;
}

Api::Api(ObjectStore& objects, ApiOptions options) : objects_(objects), options_(std::move(options)) {}

TypeRules Api::RulesFor(const ObjectKey& key, const Json& object) const {
  TypeRules t;
  if (options_.crds != nullptr) t.crd = options_.crds->Find(key.group, VersionOf(object), key.kind);
  if (t.crd != nullptr) {
    t.status_subresource = t.crd->status_subresource;
    t.unconditional_update = false;  // the custom resource strategy
    return t;
  }
  t.builtin = FindBuiltin(key.group, key.kind);
  if (t.builtin != nullptr) {
    t.status_subresource = t.builtin->status_subresource;
    t.unconditional_update = t.builtin->unconditional_update;
  }
  return t;
}

std::optional<ApiResult> Api::Admit(const ObjectKey& key, const TypeRules& rules, Json& object,
                                    const Json* old, std::vector<std::string>* warnings) const {
  if (!options_.validate) return std::nullopt;
  std::vector<crd::FieldError> errs;
  std::string name = engine::GetString(object, {"metadata", "name"});
  if (name.empty()) name = engine::GetString(object, {"metadata", "generateName"});
  if (rules.crd != nullptr) {
    errs = ValidateMeta(object, rules.crd->namespaced, NameRule::kSubdomain);
    std::vector<std::string> dropped;
    for (auto& e : options_.crds->Admit(*rules.crd, object, old, &dropped)) errs.push_back(std::move(e));
    if (errs.empty()) {
      if (warnings != nullptr)
        for (const std::string& path : dropped)
          warnings->push_back(recon::StrCat("unknown field \"", path, "\""));
      return std::nullopt;
    }
    // The message first: argument evaluation order is unspecified, and errs is moved.
    std::string message = crd::InvalidMessage(*rules.crd, name, errs);
    return Invalid(std::move(message), std::move(errs), key.group, key.kind);
  }
  if (rules.builtin == nullptr) return std::nullopt;  // schemaless: not validated
  if (auto s = DecodeBuiltin(*rules.builtin, object); !s.ok()) {
    return Failure(400, "BadRequest", Sv(s.message()));
  }
  errs = ValidateMeta(object, rules.builtin->namespaced, rules.builtin->name);
  for (auto& e : ValidateBuiltin(*rules.builtin, object, old)) errs.push_back(std::move(e));
  if (errs.empty()) return std::nullopt;
  std::string qualified = key.group.empty() ? key.kind : recon::StrCat(key.kind, ".", key.group);
  std::string message = InvalidMessageFor(qualified, name, errs);
  return Invalid(std::move(message), std::move(errs), key.group, key.kind);
}

std::optional<ApiResult> Api::RequireResourceVersion(const ObjectKey& key, const TypeRules& rules,
                                                     const Json& object) const {
  if (rules.unconditional_update || !engine::GetString(object, {"metadata", "resourceVersion"}).empty())
    return std::nullopt;
  // The registry store words it with the resource in the kind's place.
  std::string plural = rules.crd != nullptr       ? rules.crd->plural
                       : rules.builtin != nullptr ? std::string(rules.builtin->plural)
                                                  : ResourceName(ObjectKey{"", key.kind, "", ""});
  std::vector<crd::FieldError> causes = {{"FieldValueInvalid", "metadata.resourceVersion",
                                          "Invalid value: 0x0: must be specified for an update"}};
  std::string qualified = key.group.empty() ? plural : recon::StrCat(plural, ".", key.group);
  std::string message = InvalidMessageFor(qualified, key.name, causes);
  return Invalid(std::move(message), std::move(causes), key.group, plural);
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
    r->events.push_back(WatchEvent(records::EventType::kDeleted, next, now_ns));
    return;
  }
  r->events.push_back(
      WatchEvent(existed ? records::EventType::kModified : records::EventType::kAdded, next, now_ns));
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
    if (SameJson(cmp, *current)) return Unchanged(*current);
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
  if (!key.ok()) {
    // A nameless object of a known type: the server's own refusal.
    std::string api_version = engine::GetString(obj, {"apiVersion"}), kind = engine::GetString(obj, {"kind"});
    if (api_version.empty() || kind.empty() || !obj["metadata"].is_object())
      return Failure(422, "Invalid", Sv(key.status().message()));
    size_t slash = api_version.find('/');
    ObjectKey loose{slash == std::string::npos ? "" : api_version.substr(0, slash), kind,
                    engine::GetString(obj, {"metadata", "namespace"}), ""};
    TypeRules rules = RulesFor(loose, obj);
    if (auto refused = Admit(loose, rules, obj, nullptr)) return *refused;
    return Failure(422, "Invalid", Sv(key.status().message()));
  }
  if (IsAzure(*key)) return AzureApply(objects_, "create", *key, obj, now_ns);
  TypeRules rules = RulesFor(*key, obj);
  if (rules.status_subresource) obj.erase("status");  // create does not set a subresource's status
  std::vector<std::string> warnings;
  if (auto refused = Admit(*key, rules, obj, nullptr, &warnings)) return *refused;
  if (objects_.Get(*key) != nullptr) {
    return Failure(409, "AlreadyExists",
                   recon::StrCat(ResourceName(*key), " \"", key->name, "\" already exists"));
  }
  Json& meta = obj["metadata"];
  for (auto f : kServerMeta) meta.erase(std::string(f));
  meta["uid"] = objects_.NextUid();
  meta["generation"] = 1;
  meta["creationTimestamp"] = engine::FormatRfc3339Seconds(now_ns);
  ApiResult r;
  r.status = 201;
  r.warnings = std::move(warnings);
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
  TypeRules rules = RulesFor(*key, object);
  if (auto refused = RequireResourceVersion(*key, rules, object)) return *refused;
  std::string rv = engine::GetString(object, {"metadata", "resourceVersion"});
  if (!rv.empty() && rv != engine::GetString(*current, {"metadata", "resourceVersion"})) {
    return Failure(409, "Conflict", ConflictMessage(*key));
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
  if (rules.status_subresource) {
    next.erase("status");
    if (current->contains("status")) next["status"] = (*current)["status"];
  }
  std::vector<std::string> warnings;
  if (auto refused = Admit(*key, rules, next, current, &warnings)) return *refused;
  if (!SpecEqual(next, *current, rules.status_subresource))
    next["metadata"]["generation"] = Generation(*current) + 1;
  Json cmp = next;
  cmp["metadata"]["resourceVersion"] =
      cur_meta.contains("resourceVersion") ? cur_meta["resourceVersion"] : Json();
  const bool same = SameJson(cmp, *current);  // a no-op: no new resourceVersion, no event
  ApiResult r = same ? Unchanged(*current) : ApiResult();
  r.warnings = std::move(warnings);
  if (!same) Commit(*key, std::move(next), true, now_ns, &r);
  return r;
}

ApiResult Api::UpdateStatus(const Json& object, int64_t now_ns) {
  auto key = KeyOf(object);
  if (!key.ok()) return Failure(422, "Invalid", Sv(key.status().message()));
  if (IsAzure(*key)) return AzureApply(objects_, "updateStatus", *key, object, now_ns);
  TypeRules rules = RulesFor(*key, object);
  // No subresource: no /status route at all.
  if (!rules.status_subresource)
    return Failure(404, "NotFound", "the server could not find the requested resource");
  const Json* current = objects_.Get(*key);
  if (current == nullptr) {
    return Failure(404, "NotFound", recon::StrCat(ResourceName(*key), " \"", key->name, "\" not found"));
  }
  if (auto refused = RequireResourceVersion(*key, rules, object)) return *refused;
  std::string rv = engine::GetString(object, {"metadata", "resourceVersion"});
  if (!rv.empty() && rv != engine::GetString(*current, {"metadata", "resourceVersion"})) {
    return Failure(409, "Conflict", ConflictMessage(*key));
  }
  Json next = *current;
  next.erase("status");
  if (object.contains("status")) next["status"] = object["status"];
  // The one metadata field a status write sets: the server's field
  // manager tracked it (kube's status strategies keep it too).
  if (const Json& mf = engine::Path(object, {"metadata", "managedFields"}); mf.is_array())
    next["metadata"]["managedFields"] = mf;
  std::vector<std::string> warnings;
  if (auto refused = Admit(*key, rules, next, current, &warnings)) return *refused;
  const bool same = SameJson(next, *current);
  ApiResult r = same ? Unchanged(*current) : ApiResult();
  r.warnings = std::move(warnings);
  if (!same) Commit(*key, std::move(next), true, now_ns, &r);
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
  r.events.push_back(WatchEvent(records::EventType::kDeleted, last, now_ns));
  return r;
}

}  // namespace recon::sim
