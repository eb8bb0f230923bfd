#include "adapters/sim/imports.h"

#include <algorithm>

#include "base/strings.h"
#include "engine/time_format.h"

namespace recon::sim {
namespace {

std::string Registry(std::string_view image) {
  size_t slash = image.find('/');
  return std::string(slash == std::string_view::npos ? "docker.io" : image.substr(0, slash));
}

// What OpenShift's importer reports for a kind of failure.
void Describe(std::string_view fail, std::string_view image, ImportOutcome* o) {
  if (fail == "unauthorized") {
    o->reason = "Unauthorized";
    o->message = recon::StrCat("you may not have access to the container image \"", image, "\"");
  } else if (fail == "notfound" || fail == "not found") {
    o->reason = "NotFound";
    o->message = recon::StrCat("dockerimage.image.openshift.io \"", image, "\" not found");
  } else if (fail == "timeout") {
    o->reason = "InternalError";
    o->message = recon::StrCat("Internal error occurred: Get \"https://", Registry(image),
                               "/v2/\": dial tcp: i/o timeout");
  } else {
    o->reason = "InternalError";
    o->message = recon::StrCat("Internal error occurred: ", fail);
  }
}

// The reference without its tag or digest.
std::string Repository(std::string_view image) {
  size_t at = image.find('@');
  if (at != std::string_view::npos) return std::string(image.substr(0, at));
  size_t colon = image.rfind(':'), slash = image.rfind('/');
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    return std::string(image.substr(0, colon));
  }
  return std::string(image);
}

Json* FindTag(Json& list, std::string_view key, std::string_view tag) {
  if (!list.is_array()) return nullptr;
  for (Json& t : list) {
    if (engine::GetString(t, {key}) == tag) return &t;
  }
  return nullptr;
}

}  // namespace

ImportOutcome ImportRules::Decide(std::string_view image) {
  ImportOutcome o;
  o.latency_ns = default_latency_ns_;
  bool decided_fail = false, decided_latency = false;
  for (size_t i = 0; i < rules_.size(); ++i) {
    const ImportRule& r = rules_[i];
    if (!image.starts_with(r.match)) continue;
    if (r.latency_ns && !decided_latency) {
      o.latency_ns = *r.latency_ns;
      decided_latency = true;
    }
    if (r.fail && !decided_fail) {
      if (r.times >= 0 && uses_[i] >= r.times) continue;  // this rule is spent
      ++uses_[i];
      decided_fail = true;
      o.ok = false;
      Describe(*r.fail, image, &o);
      if (!r.reason.empty()) o.reason = r.reason;
      if (!r.message.empty()) o.message = r.message;
    }
  }
  return o;
}

absl::StatusOr<std::vector<TagImport>> ImportsOf(const Json& isi) {
  const Json& images = engine::Path(isi, {"spec", "images"});
  if (!images.is_null() && !images.is_array())
    return absl::InvalidArgumentError("spec.images: expected a list");
  std::vector<TagImport> out;
  if (images.is_null()) return out;
  for (size_t i = 0; i < images.size(); ++i) {
    const Json& img = images[i];
    std::string kind = engine::GetString(img, {"from", "kind"});
    if (kind != "DockerImage") continue;
    TagImport t;
    t.from = engine::GetString(img, {"from", "name"});
    t.tag = engine::GetString(img, {"to", "name"});
    if (t.from.empty())
      return absl::InvalidArgumentError(recon::StrCat("spec.images[", i, "].from.name: required"));
    if (t.tag.empty()) t.tag = "latest";
    t.import_policy = engine::Path(img, {"importPolicy"});
    t.reference_policy = engine::Path(img, {"referencePolicy"});
    out.push_back(std::move(t));
  }
  return out;
}

std::map<std::string, std::string> DockerImageTags(const Json& stream) {
  std::map<std::string, std::string> out;
  const Json& tags = engine::Path(stream, {"spec", "tags"});
  if (!tags.is_array()) return out;
  for (const Json& t : tags) {
    if (engine::GetString(t, {"from", "kind"}) != "DockerImage") continue;
    std::string name = engine::GetString(t, {"name"}), from = engine::GetString(t, {"from", "name"});
    if (!name.empty() && !from.empty()) out[name] = from;
  }
  return out;
}

std::string ImageDigest(std::string_view image) {
  std::string d = records::ContentDigest({{"image", std::string(image)}});
  return d;  // already "sha256:<hex>"
}

ApiResult ApplyImports(Api& api, const ObjectKey& key, const std::vector<TagImport>& imports, bool set_spec,
                       int64_t now_ns) {
  const Json* current = api.objects().Get(key);
  Json next;
  if (current != nullptr) {
    next = *current;
  } else {
    if (!set_spec) return ApiResult{};  // the stream went away while importing
    next = Json{{"apiVersion", "image.openshift.io/v1"},
                {"kind", "ImageStream"},
                {"metadata", {{"name", key.name}, {"namespace", key.ns}}},
                {"spec", {{"lookupPolicy", {{"local", false}}}}}};
  }
  if (!next["spec"].is_object()) next["spec"] = Json::object();
  int64_t generation = 1;
  if (const Json& g = engine::Path(next, {"metadata", "generation"}); g.is_number_integer())
    generation = g.get<int64_t>();
  if (set_spec && current != nullptr) {
    // Spec tags change: the API server bumps generation if any does.
    Json before = next["spec"];
    for (const auto& t : imports) {
      if (!next["spec"]["tags"].is_array()) next["spec"]["tags"] = Json::array();
      Json* spec_tag = FindTag(next["spec"]["tags"], "name", t.tag);
      Json want = spec_tag ? *spec_tag : Json{{"name", t.tag}};
      want["from"] = Json{{"kind", "DockerImage"}, {"name", t.from}};
      if (!t.import_policy.is_null()) want["importPolicy"] = t.import_policy;
      if (!t.reference_policy.is_null()) want["referencePolicy"] = t.reference_policy;
      if (spec_tag) {
        *spec_tag = std::move(want);
      } else {
        next["spec"]["tags"].push_back(std::move(want));
      }
    }
    if (!SameJson(next["spec"], before)) ++generation;
  }
  if (set_spec) {
    next["metadata"]["generation"] = generation;
    for (const auto& t : imports) {
      Json* spec_tag = FindTag(next["spec"]["tags"], "name", t.tag);
      if (spec_tag == nullptr) {
        if (!next["spec"]["tags"].is_array()) next["spec"]["tags"] = Json::array();
        next["spec"]["tags"].push_back(
            Json{{"name", t.tag}, {"from", {{"kind", "DockerImage"}, {"name", t.from}}}});
        spec_tag = &next["spec"]["tags"].back();
        if (!t.import_policy.is_null()) (*spec_tag)["importPolicy"] = t.import_policy;
        if (!t.reference_policy.is_null()) (*spec_tag)["referencePolicy"] = t.reference_policy;
      }
      (*spec_tag)["generation"] = generation;
    }
  }
  Json& status = next["status"];
  if (!status.is_object()) status = Json::object();
  if (!status.contains("dockerImageRepository")) {
    status["dockerImageRepository"] =
        recon::StrCat("image-registry.openshift-image-registry.svc:5000/", key.ns, "/", key.name);
  }
  if (!status["tags"].is_array()) status["tags"] = Json::array();
  auto spec_tags = DockerImageTags(next);
  for (const auto& t : imports) {
    auto st = spec_tags.find(t.tag);
    if (st == spec_tags.end() || st->second != t.from) continue;  // the tag moved on meanwhile
    Json* entry = FindTag(status["tags"], "tag", t.tag);
    if (entry == nullptr) {
      status["tags"].push_back(Json{{"tag", t.tag}, {"items", Json::array()}});
      entry = &status["tags"].back();
    }
    if (t.outcome.ok) {
      std::string digest = ImageDigest(t.from);
      std::string repo = Repository(t.from);
      Json item = {{"created", engine::FormatRfc3339Seconds(now_ns)},
                   {"dockerImageReference", recon::StrCat(repo, "@", digest)},
                   {"image", digest},
                   {"generation", generation}};
      Json items = Json::array({item});
      if ((*entry)["items"].is_array()) {
        for (const Json& old : (*entry)["items"]) {
          if (engine::GetString(old, {"image"}) != digest) items.push_back(old);
        }
      }
      (*entry)["items"] = std::move(items);
      entry->erase("conditions");
    } else {
      std::string since = engine::FormatRfc3339Seconds(now_ns);
      const Json& prev = engine::Path(*entry, {"conditions"});
      if (prev.is_array() && !prev.empty() && engine::GetString(prev[0], {"reason"}) == t.outcome.reason) {
        since = engine::GetString(prev[0], {"lastTransitionTime"}, since);
      }
      (*entry)["conditions"] = Json::array({Json{{"type", "ImportSuccess"},
                                                 {"status", "False"},
                                                 {"lastTransitionTime", since},
                                                 {"reason", t.outcome.reason},
                                                 {"message", t.outcome.message},
                                                 {"generation", generation}}});
      if (!(*entry)["items"].is_array()) (*entry)["items"] = nullptr;
    }
  }
  return api.ServerWrite(key, std::move(next), now_ns);
}

}  // namespace recon::sim
