#include "cli/azure_options.h"

#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "domains/aro/subnet_discovery.h"

namespace recon::cli {

absl::StatusOr<azure::AzureOptions> AzureOptionsFrom(const Args& args) {
  azure::AzureOptions az;
  az.arm.arm_endpoint = args.GetOr("arm-endpoint", az.arm.arm_endpoint);
  az.arm.aad_endpoint = args.GetOr("aad-endpoint", az.arm.aad_endpoint);
  az.arm.seed = std::random_device{}();
  // Trusted as the ARO operator trusts it (Go's crypto/x509 reads it too).
  if (const char* bundle = std::getenv("SSL_CERT_FILE"); bundle != nullptr && *bundle != '\0')
    az.arm.ca_file = bundle;
  if (auto file = args.Get("azure-credentials"); file && *file == "env") {
    // As the ARO operator's DefaultAzureCredential, from its pod's environment.
    auto c = azure::CredentialsFromEnvironment(azure::ProcessEnvironment());
    if (c.ok()) {
      az.credentials = std::move(*c);
    } else {
      az.credentials_error = std::string(c.status().message());
    }
    const char* authority = std::getenv("AZURE_AUTHORITY_HOST");
    if (!args.Has("aad-endpoint") && authority != nullptr && *authority != '\0')
      az.arm.aad_endpoint = authority;
  } else if (file) {
    auto c = azure::LoadCredentialsFile(*file);
    if (!c.ok()) return c.status();
    az.credentials = std::move(*c);
  }
  // Which resources to read is the aro domain's call (a pure function of the world).
  az.reads = [](const engine::World& world) {
    std::vector<azure::ArmRef> refs;
    for (auto& r : aro::AzureReads(world)) refs.push_back({std::move(r.kind), std::move(r.id)});
    return refs;
  };
  return az;
}

}  // namespace recon::cli
