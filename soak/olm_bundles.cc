#include "soak/olm_bundles.h"

#include <algorithm>
#include <map>
#include <vector>

#include "base/strings.h"
#include "domains/olm/catalog/semver.h"

namespace recon::soak {

std::shared_ptr<sim::OlmBundles> OlmBundlesOf(const olm::CatalogIndex& index,
                                              const std::set<std::string>* packages) {
  auto out = std::make_shared<sim::OlmBundles>();
  std::map<std::string, std::vector<std::string>> names;  // package → its CSVs
  for (const olm::Entry& en : index.entries()) {
    if (packages != nullptr && !packages->contains(en.package)) continue;
    auto [it, fresh] = out->try_emplace(en.name);
    sim::OlmBundle& b = it->second;
    if (fresh) {
      b.package = en.package;
      b.version = en.version_text;
      b.image = en.image;
      names[en.package].push_back(en.name);
      for (const auto& g : en.provides)
        b.owned.push_back(engine::Json{
            {"name", recon::StrCat(g.kind, "s.", g.group)}, {"version", g.version}, {"kind", g.kind}});
    }
    if (b.replaces.empty()) b.replaces = en.replaces;
  }
  // Version order within a package; a version that does not parse sorts
  // first, by name.
  for (auto& [package, csvs] : names) {
    auto less = [&](const std::string& a, const std::string& b) {
      auto va = olm::ParseVersionTolerant(out->at(a).version),
           vb = olm::ParseVersionTolerant(out->at(b).version);
      if (va.ok() != vb.ok()) return !va.ok();
      if (va.ok()) {
        int c = olm::Compare(*va, *vb);
        if (c != 0) return c < 0;
      }
      return a < b;
    };
    std::sort(csvs.begin(), csvs.end(), less);
    for (size_t i = 0; i < csvs.size(); ++i) out->at(csvs[i]).rank = static_cast<int>(i);
  }
  return out;
}

}  // namespace recon::soak
