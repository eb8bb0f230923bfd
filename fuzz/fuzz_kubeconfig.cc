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

// Whether `secret` shows in `text` because of the secret itself: the same
// description made without the secrets (`scrubbed`) must not hold it too
// (a token such as "secure-skip-tls-verify)" is a substring of Describe's
// own wording; found by this target in CI).
bool Leaks(const std::string& text, const std::string& secret, const std::string& scrubbed) {
  if (secret.size() < 12) return false;
  if (text.find(secret) == std::string::npos) return false;
  return scrubbed.find(secret) == std::string::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view yaml(reinterpret_cast<const char*>(data), size);
  // Parsed once (yaml-cpp's parse is most of the time), resolved twice.
  auto file = recon::k8s::Kubeconfig::Parse(yaml, "fuzz.kubeconfig");
  if (!file.ok()) return 0;
  for (std::string_view context : {std::string_view(), std::string_view("prod")}) {
    auto config = file->Resolve(context, "/base");
    if (!config.ok()) continue;
    if (config->server.empty()) abort();
    std::string described = config->Describe();
    recon::k8s::RestConfig without = *config;
    without.token = "<token>";
    without.client_key_pem = "<key>";
    std::string scrubbed = without.Describe();
    if (Leaks(described, config->token, scrubbed) || Leaks(described, config->client_key_pem, scrubbed))
      abort();
  }
  return 0;
}
