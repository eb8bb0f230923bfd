// The requirement check's view of the cluster (csv/requirements.h) over
// the engine's world: CRDs, a namespace's service accounts, and RBAC.
#ifndef RECON_DOMAINS_OLM_REQUIREMENT_VIEW_H_
#define RECON_DOMAINS_OLM_REQUIREMENT_VIEW_H_

#include <string_view>

#include "domains/olm/csv/requirements.h"
#include "engine/world.h"

namespace recon::olm {

// Service accounts are looked up in `ns` (the CSV's namespace); the view
// refers to `w`, which must outlive it.
RequirementView RequirementsIn(const engine::World& w, std::string_view ns);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_REQUIREMENT_VIEW_H_
