// Fuzzes the kubeconfig parser (adapters/k8s/kubeconfig.h) over any bytes:
// a RestConfig or an error, never a crash; an accepted config has a server;
// and Describe() (the only form that is logged) never holds the token or
// the client key.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "adapters/k8s/kubeconfig.h"

namespace {

// Whether `secret` could be told apart in `text` (not merely a substring
// that the non-secret parts of the description also hold).
bool Leaks(const std::string& text, const std::string& secret, const recon::k8s::RestConfig& c) {
  if (secret.size() < 12) return false;
  if (text.find(secret) == std::string::npos) return false;
  for (const std::string* part : {&c.server, &c.context, &c.source, &c.ns, &c.token_file, &c.ca_file,
                                  &c.client_cert_file, &c.client_key_file, &c.tls_server_name}) {
    if (part->find(secret) != std::string::npos) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view yaml(reinterpret_cast<const char*>(data), size);
  for (std::string_view context : {std::string_view(), std::string_view("prod")}) {
    auto config = recon::k8s::ParseKubeconfig(yaml, "fuzz.kubeconfig", context, "/base");
    if (!config.ok()) continue;
    if (config->server.empty()) abort();
    std::string described = config->Describe();
    if (Leaks(described, config->token, *config) || Leaks(described, config->client_key_pem, *config))
      abort();
  }
  return 0;
}
