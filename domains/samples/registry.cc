#include "domains/samples/registry.h"

#include <algorithm>
#include <array>
#include <set>

#include "absl/strings/ascii.h"
#include "base/strings.h"

namespace recon::samples {
namespace {

std::string Trim(std::string_view s) { return std::string(Sv(absl::StripAsciiWhitespace(Av(s)))); }

}  // namespace

std::string OverrideRegistry(std::string_view ref, std::string_view registry) {
  // An empty override is a prefix of everything: never rewrites.
  if (ref.starts_with(registry)) return std::string(ref);
  if (std::count(ref.begin(), ref.end(), '/') == 2) {
    static constexpr std::array<std::string_view, 5> kKnown = {"docker.io", "registry.redhat.io",
                                                               "registry.access.redhat.com", "quay.io",
                                                               "registry.svc.ci.openshift.org"};
    for (std::string_view known : kKnown) {
      if (ref.starts_with(known)) {
        // A plain first-occurrence replacement, not a host match.
        return recon::StrCat(registry, ref.substr(known.size()));
      }
    }
    size_t slash = ref.find('/');
    return recon::StrCat(registry, ref.substr(slash));
  }
  return recon::StrCat(registry, "/", ref);
}

void ApplyRegistryOverride(Json& is, std::string_view registry) {
  if (registry.empty() || !is.is_object()) return;
  auto spec = is.find("spec");
  if (spec == is.end() || !spec->is_object()) return;
  auto repo = spec->find("dockerImageRepository");
  if (repo != spec->end() && repo->is_string() && !repo->get<std::string>().empty()) {
    *repo = OverrideRegistry(repo->get<std::string>(), registry);
  }
  auto tags = spec->find("tags");
  if (tags == spec->end() || !tags->is_array()) return;
  for (Json& tag : *tags) {
    if (engine::GetString(tag, {"from", "kind"}) != "DockerImage") continue;
    tag["from"]["name"] = OverrideRegistry(engine::GetString(tag, {"from", "name"}), registry);
  }
}

bool ImageConfigBlocks(const Json& image_config, std::string_view registry) {
  const Json& spec = engine::Path(image_config, {"spec"});
  const Json& for_import = engine::Path(spec, {"allowedRegistriesForImport"});
  if (for_import.is_array() && !for_import.empty()) {
    std::set<std::string> domains;
    for (const Json& d : for_import) domains.insert(engine::GetString(d, {"domainName"}));
    bool allowed = false;
    if (registry.empty()) {
      auto has = [&](std::initializer_list<std::string_view> names) {
        for (auto n : names)
          if (!domains.contains(std::string(n))) return false;
        return true;
      };
      allowed = has({"registry.redhat.io", "quay.io"}) ||
                has({"registry.redhat.io", "redhat.com", "quay.io"}) || has({"redhat.io", "quay.io"}) ||
                has({"redhat.io", "redhat.com", "quay.io"});
    } else {
      for (const auto& d : domains) allowed |= registry.ends_with(d);
    }
    if (!allowed) return true;
  }
  const Json& allowed_list = engine::Path(spec, {"registrySources", "allowedRegistries"});
  if (allowed_list.is_array() && !allowed_list.empty()) {
    bool allowed = false, has_rh = false, has_quay = false;
    for (const Json& e : allowed_list) {
      if (!e.is_string()) continue;
      std::string v = Trim(e.get<std::string>());
      allowed |= !registry.empty() && v == Trim(registry);
      has_rh |= v == "registry.redhat.io";
      has_quay |= v == "quay.io";
    }
    if (registry.empty()) allowed = has_rh && has_quay;
    if (!allowed) return true;
  }
  const Json& blocked = engine::Path(spec, {"registrySources", "blockedRegistries"});
  if (blocked.is_array()) {
    for (const Json& e : blocked) {
      if (e.is_string() && !registry.empty() && Trim(e.get<std::string>()) == Trim(registry)) return true;
    }
  }
  return false;
}

std::vector<std::string> MirrorImages(const Inventory& inv, std::string_view registry) {
  std::vector<std::string> out;
  for (const auto& [name, stream] : inv.streams) {
    Json is = stream;
    ApplyRegistryOverride(is, registry);
    const Json& tags = engine::Path(is, {"spec", "tags"});
    if (!tags.is_array()) continue;
    for (const Json& t : tags) {
      if (engine::GetString(t, {"from", "kind"}) != "DockerImage") continue;
      std::string image = engine::GetString(t, {"from", "name"});
      if (!image.empty()) out.push_back(image);
    }
  }
  return out;
}

}  // namespace recon::samples
