// The aro domain: the ARO cluster operator's controllers as one reducer.
// Master role: subnets/NSG remediation, internet and service-principal
// checkers, alertmanager webhook, Geneva logging repair, ClusterOperator
// aro. Worker role: the internet checker only.
#ifndef RECON_DOMAINS_ARO_REDUCER_H_
#define RECON_DOMAINS_ARO_REDUCER_H_

#include <memory>

#include "engine/reducer.h"

namespace recon::aro {

std::unique_ptr<engine::Reducer> MakeReducer();

}  // namespace recon::aro

#endif  // RECON_DOMAINS_ARO_REDUCER_H_
