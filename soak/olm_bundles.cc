#include "soak/olm_bundles.h"

#include "base/strings.h"

namespace recon::soak {

std::shared_ptr<sim::OlmBundles> OlmBundlesOf(const olm::CatalogIndex& index,
                                              const std::set<std::string>* packages) {
  auto out = std::make_shared<sim::OlmBundles>();
  for (const olm::Entry& en : index.entries()) {
    if (packages != nullptr && !packages->contains(en.package)) continue;
    auto [it, fresh] = out->try_emplace(en.name);
    sim::OlmBundle& b = it->second;
    if (fresh) {
      b.package = en.package;
      b.version = en.version_text;
      b.image = en.image;
      for (const auto& g : en.provides)
        b.owned.push_back(engine::Json{
            {"name", recon::StrCat(g.kind, "s.", g.group)}, {"version", g.version}, {"kind", g.kind}});
    }
    if (b.replaces.empty()) b.replaces = en.replaces;
  }
  return out;
}

}  // namespace recon::soak
