#include "engine/resource.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace recon::engine {
namespace {

void Union(std::vector<std::string>& into, const std::vector<std::string>& more) {
  std::set<std::string> all(into.begin(), into.end());
  all.insert(more.begin(), more.end());
  into.assign(all.begin(), all.end());
}

}  // namespace

std::vector<ResourceUse> MergeResourceUses(const std::vector<ResourceUse>& uses) {
  std::map<std::pair<std::string, std::string>, ResourceUse> merged;
  for (const auto& use : uses) {
    auto key = std::make_pair(use.type.group, use.type.plural);
    auto it = merged.find(key);
    if (it == merged.end()) {
      ResourceUse copy = use;
      Union(copy.verbs, {});
      Union(copy.status_verbs, {});
      Union(copy.create_subresources, {});
      merged.emplace(key, std::move(copy));
      continue;
    }
    ResourceUse& m = it->second;
    Union(m.verbs, use.verbs);
    Union(m.status_verbs, use.status_verbs);
    Union(m.create_subresources, use.create_subresources);
    m.type.status_subresource = m.type.status_subresource || use.type.status_subresource;
    Union(m.type.short_names, use.type.short_names);
  }
  std::vector<ResourceUse> out;
  out.reserve(merged.size());
  for (auto& kv : merged) out.push_back(std::move(kv.second));
  return out;
}

}  // namespace recon::engine
