#include "domains/olm/catalog/related_images.h"

#include <set>

#include "base/strings.h"
#include "domains/olm/catalog/bundle_objects.h"
#include "engine/image_ref.h"
#include "engine/json.h"

namespace recon::olm {
namespace {

using engine::Json;

void EnvUses(const Json& csv, std::vector<ImageUse>& out) {
  const Json& deployments = engine::Path(csv, {"spec", "install", "spec", "deployments"});
  if (!deployments.is_array()) return;
  for (const Json& d : deployments) {
    std::string dname = engine::GetString(d, {"name"});
    const Json& containers = engine::Path(d, {"spec", "template", "spec", "containers"});
    if (!containers.is_array()) continue;
    for (const Json& c : containers) {
      const Json& env = engine::Path(c, {"env"});
      if (!env.is_array()) continue;
      for (const Json& e : env) {
        std::string name = engine::GetString(e, {"name"});
        const Json& v = engine::Path(e, {"value"});
        if (name.rfind("RELATED_IMAGE_", 0) != 0 || !v.is_string()) continue;
        out.push_back(
            {v.get<std::string>(), recon::StrCat("env ", name, " (deployment ", dname, ", container ",
                                                 engine::GetString(c, {"name"}), ")")});
      }
    }
  }
}

}  // namespace

BundleImages CollectBundleImages(const DeclarativeConfig& cfg, const Bundle& b) {
  BundleImages out;
  out.package = b.package;
  out.bundle = b.name;
  if (!b.image.empty()) out.uses.push_back({b.image, "bundle"});
  for (const auto& r : b.related_images) {
    out.uses.push_back({r.image, r.name.empty() ? "relatedImages" : recon::StrCat("relatedImages ", r.name)});
  }
  for (const auto& obj : DecodeBundleObjects(cfg, b)) {
    if (!obj.ok()) {
      out.error = std::string(Sv(obj.status().message()));
      continue;
    }
    if (engine::GetString(*obj, {"kind"}) == "ClusterServiceVersion") EnvUses(*obj, out.uses);
  }
  return out;
}

std::vector<ImageFinding> CheckBundleImages(const BundleImages& images) {
  std::vector<ImageFinding> out;
  auto flag = [&](const ImageUse& u, std::string problem) {
    out.push_back({images.package, images.bundle, u.image, u.source, std::move(problem)});
  };
  std::set<std::string> related;
  for (const auto& u : images.uses)
    if (u.source.rfind("relatedImages", 0) == 0) related.insert(u.image);
  for (const auto& u : images.uses) {
    if (u.image.empty()) {
      if (u.source != "bundle") flag(u, "empty image reference");
      continue;
    }
    auto ref = engine::ParseImageRef(u.image);
    if (!ref.ok()) {
      flag(u, std::string(Sv(ref.status().message())));
      continue;
    }
    if (!ref->pinned()) flag(u, "tag reference, no digest");
    if (u.source.rfind("env ", 0) == 0 && !related.count(u.image)) flag(u, "not listed in relatedImages");
  }
  if (!images.error.empty())
    out.push_back({images.package, images.bundle, "", "bundle object", images.error});
  return out;
}

}  // namespace recon::olm
