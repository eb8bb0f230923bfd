#include "domains/olm/plan_gc.h"

#include <algorithm>
#include <map>

namespace recon::olm {

std::vector<std::string_view> PlansToCollect(const std::vector<ListedPlan>& listed) {
  std::vector<std::string_view> out;
  if (listed.size() <= kMaxInstallPlans) return out;
  const size_t considered = std::min(listed.size(), kMaxInstallPlans + kMaxPlanDeletes);
  std::map<int64_t, std::vector<const ListedPlan*>> by_generation;  // ascending, as upstream sorts
  for (size_t i = 0; i < considered; ++i)
    if (!listed[i].kept) by_generation[listed[i].generation].push_back(&listed[i]);
  for (auto& [generation, plans] : by_generation) {
    const size_t left = considered - out.size();
    if (left <= kMaxInstallPlans) break;
    if (left - plans.size() >= kMaxInstallPlans) {
      for (const ListedPlan* p : plans) out.push_back(p->name);
      continue;
    }
    // Only part of this generation goes (plans made without a new
    // generation, which upstream calls a bug it guards against).
    std::sort(plans.begin(), plans.end(), [](const ListedPlan* a, const ListedPlan* b) {
      return a->created != b->created ? a->created < b->created : a->name < b->name;
    });
    for (size_t i = 0; i < left - kMaxInstallPlans; ++i) out.push_back(plans[i]->name);
  }
  return out;
}

}  // namespace recon::olm
