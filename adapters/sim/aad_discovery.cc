#include "adapters/sim/aad_discovery.h"

#include <string>
#include <vector>

#include "base/strings.h"

namespace recon::sim {

using engine::Json;

Json OpenIdConfiguration(std::string_view base, std::string_view tenant) {
  std::string root = recon::StrCat(base, "/", tenant);
  return {{"token_endpoint", recon::StrCat(root, "/oauth2/v2.0/token")},
          {"token_endpoint_auth_methods_supported",
           Json::array({"client_secret_post", "private_key_jwt", "client_secret_basic"})},
          {"jwks_uri", recon::StrCat(base, "/", tenant, "/discovery/v2.0/keys")},
          {"response_modes_supported", Json::array({"query", "fragment", "form_post"})},
          {"subject_types_supported", Json::array({"pairwise"})},
          {"id_token_signing_alg_values_supported", Json::array({"RS256"})},
          {"response_types_supported", Json::array({"code", "id_token", "code id_token", "id_token token"})},
          {"scopes_supported", Json::array({"openid", "profile", "email", "offline_access"})},
          // AAD names its own host in the issuer, whatever host was asked.
          {"issuer", recon::StrCat("https://login.microsoftonline.com/", tenant, "/v2.0")},
          {"request_uri_parameter_supported", false},
          {"authorization_endpoint", recon::StrCat(root, "/oauth2/v2.0/authorize")},
          {"device_authorization_endpoint", recon::StrCat(root, "/oauth2/v2.0/devicecode")},
          {"end_session_endpoint", recon::StrCat(root, "/oauth2/v2.0/logout")},
          {"tenant_region_scope", "NA"},
          {"cloud_instance_name", "microsoftonline.com"}};
}

Json InstanceDiscovery(std::string_view base, std::string_view authorization_endpoint) {
  // https://HOST/TENANT/oauth2/v2.0/authorize -> TENANT ("common" if unsaid).
  std::string tenant = "common";
  std::string_view rest = authorization_endpoint;
  if (size_t scheme = rest.find("://"); scheme != std::string_view::npos) rest.remove_prefix(scheme + 3);
  if (size_t slash = rest.find('/'); slash != std::string_view::npos) {
    rest.remove_prefix(slash + 1);
    if (size_t end = rest.find('/'); end != std::string_view::npos && end > 0)
      tenant = std::string(rest.substr(0, end));
  }
  return {
      {"tenant_discovery_endpoint",
       recon::StrCat(base, "/", tenant, "/v2.0/.well-known/openid-configuration")},
      {"api-version", "1.1"},
      {"metadata", Json::array({{{"preferred_network", "login.microsoftonline.com"},
                                 {"preferred_cache", "login.windows.net"},
                                 {"aliases", Json::array({"login.microsoftonline.com", "login.windows.net",
                                                          "login.microsoft.com", "sts.windows.net"})}}})}};
}

}  // namespace recon::sim
