#include "adapters/importers/import.h"

#include <algorithm>

#include "base/strings.h"

namespace recon::adapters::importers {

const engine::ResourceType* KindFilter::ByResource(std::string_view group, std::string_view plural) const {
  for (const auto& t : types)
    if (t.group == group && t.plural == plural) return &t;
  return nullptr;
}

bool KindFilter::Keeps(std::string_view group, std::string_view kind) const {
  if (all_kinds) return true;
  for (const auto& t : types)
    if (t.group == group && t.kind == kind) return true;
  return false;
}

std::vector<std::string> DescribeSkipped(const ImportResult& result) {
  std::vector<std::pair<std::string, uint64_t>> v(result.skipped.begin(), result.skipped.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> out;
  for (const auto& [reason, n] : v) out.push_back(recon::StrCat(n, " ", reason));
  return out;
}

}  // namespace recon::adapters::importers
