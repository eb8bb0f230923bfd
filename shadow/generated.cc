#include "shadow/generated.h"

#include <algorithm>
#include <vector>

namespace recon::shadow {
namespace {

// OLM's catalog operator: `generateName: install-` (pkg/controller/operators/catalog).
constexpr GeneratedKind kKinds[] = {{"operators.coreos.com", "InstallPlan", "install-"}};

}  // namespace

const GeneratedKind* GeneratedKindOf(std::string_view group, std::string_view kind) {
  for (const auto& k : kKinds)
    if (k.group == group && k.kind == kind) return &k;
  return nullptr;
}

std::string ContentKey(const GeneratedKind& kind, const engine::Json& object) {
  std::string key(kind.kind);
  key += '\x1f';
  key += engine::GetString(object, {"metadata", "namespace"});
  std::vector<std::string> csvs;
  const engine::Json& names = engine::Path(object, {"spec", "clusterServiceVersionNames"});
  if (names.is_array())
    for (const auto& n : names)
      if (n.is_string()) csvs.push_back(n.get<std::string>());
  std::sort(csvs.begin(), csvs.end());
  for (const auto& c : csvs) {
    key += '\x1f';
    key += c;
  }
  key += '\x1e';
  key += engine::GetString(object, {"spec", "approval"});
  return key;
}

void DropUnorderedDiffs(const GeneratedKind& kind, const engine::Json& predicted, const engine::Json& observed,
                        std::vector<FieldDiff>* diffs) {
  if (ContentKey(kind, predicted) != ContentKey(kind, observed)) return;
  std::erase_if(*diffs, [](const FieldDiff& d) { return d.path.starts_with("spec.clusterServiceVersionNames"); });
}

}  // namespace recon::shadow
