// §10.1 step 1: upstream's InstallPlan garbage collection (catalog
// operator's gcInstallPlans). InstallPlans are owned by every subscription
// they served, so nothing else deletes them; a namespace keeps at most
// kMaxInstallPlans, the newest by spec.generation.
#ifndef RECON_DOMAINS_OLM_PLAN_GC_H_
#define RECON_DOMAINS_OLM_PLAN_GC_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace recon::olm {

inline constexpr size_t kMaxInstallPlans = 5;  // upstream's maxInstallPlanCount
inline constexpr size_t kMaxPlanDeletes = 5;   // upstream's maxDeletesPerSweep

// An InstallPlan of the namespace as listed.
struct ListedPlan {
  std::string_view name;
  int64_t generation = 0;    // spec.generation
  std::string_view created;  // metadata.creationTimestamp (RFC 3339, UTC)
  // A subscription not at its installed CSV still waits on it (see below).
  bool kept = false;
};

// The plans one sweep deletes, given the namespace's plans in list order.
// Upstream considers only the first kMaxInstallPlans + kMaxPlanDeletes of
// its informer's list (in no set order; ours is by name), deletes whole
// generations oldest first while at least kMaxInstallPlans stay, and within
// the generation that would cross the line the oldest by creation time,
// then by name. Repeated sweeps keep the newest generations.
//
// Deviation: a `kept` plan is never deleted (the others still go, oldest
// first, while more than kMaxInstallPlans are listed). Upstream repeats
// every pending step in each new plan, so the plan a waiting subscription
// references is never the only one carrying its step; ours plans each step
// once (sync_resolve.cc), and deleting a Manual subscription's plan that
// waits for approval made it plan again, newest, while the GC took the next
// oldest: with six such subscriptions in one namespace, forever.
std::vector<std::string_view> PlansToCollect(const std::vector<ListedPlan>& listed);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_PLAN_GC_H_
