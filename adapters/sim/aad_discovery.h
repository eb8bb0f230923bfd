// The documents AAD serves before a token request, as the Azure SDK for Go
// (MSAL) asks for them: a tenant's OpenID configuration
// (GET /{tenant}/v2.0/.well-known/openid-configuration: the token endpoint
// MSAL then POSTs to) and instance discovery
// (GET /common/discovery/instance, for an authority host MSAL does not
// trust by name). `base` is the URL the client used ("https://" + its Host
// header under `sim serve --arm --tls`), so the endpoints named lead back to
// the simulation. Pure; arm_server.cc routes to them.
#ifndef RECON_ADAPTERS_SIM_AAD_DISCOVERY_H_
#define RECON_ADAPTERS_SIM_AAD_DISCOVERY_H_

#include <string_view>

#include "engine/json.h"

namespace recon::sim {

engine::Json OpenIdConfiguration(std::string_view base, std::string_view tenant);

// `authorization_endpoint`: the query parameter MSAL sends
// (https://HOST/TENANT/oauth2/v2.0/authorize); its tenant is the one
// discovered.
engine::Json InstanceDiscovery(std::string_view base, std::string_view authorization_endpoint);

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_AAD_DISCOVERY_H_
