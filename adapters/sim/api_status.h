// The Status object the Kubernetes API answers failures with
// (metav1.Status: kind, status Failure, message, reason, details, code).
#ifndef RECON_ADAPTERS_SIM_API_STATUS_H_
#define RECON_ADAPTERS_SIM_API_STATUS_H_

#include <string>
#include <string_view>

#include "adapters/sim/http_server.h"
#include "engine/json.h"

namespace recon::sim {

// The reason the API server gives a status code ("NotFound" for 404).
std::string ReasonFor(int status);
engine::Json StatusJson(int code, std::string_view reason, std::string_view message,
                        const engine::Json& details);
HttpAnswer StatusAnswer(int code, std::string_view reason, std::string_view message,
                        const engine::Json& details = engine::Json());

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_API_STATUS_H_
