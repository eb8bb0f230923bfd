// The cluster's service principal, as OpenShift on Azure stores it in the
// Secret kube-system/azure-credentials (keys azure_client_id,
// azure_client_secret, azure_tenant_id, azure_subscription_id,
// azure_resource_prefix, azure_region), or from a file with the same keys
// (--azure-credentials). Values never go to logs: Describe() names the
// client and tenant only.
#ifndef RECON_ADAPTERS_AZURE_CREDENTIALS_H_
#define RECON_ADAPTERS_AZURE_CREDENTIALS_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/json.h"
#include "runtime/secret_table.h"

namespace recon::azure {

inline constexpr std::string_view kCredentialsNamespace = "kube-system";
inline constexpr std::string_view kCredentialsSecret = "azure-credentials";

struct Credentials {
  std::string client_id, client_secret, tenant_id, subscription_id, resource_prefix, region;
  // Workload identity: a federated token file (client assertion) instead of
  // a client secret.
  std::string federated_token_file;

  bool complete() const {
    return !client_id.empty() && !tenant_id.empty() &&
           (!client_secret.empty() || !federated_token_file.empty());
  }
  bool operator==(const Credentials&) const = default;
  std::string Describe() const;  // "client <id> in tenant <tenant>"
};

// "key=value" or "key: value" lines (# comments, optional quotes), or a JSON
// object; keys as in the Secret, case-insensitive, an "AZURE_" env-style
// name accepted too.
absl::StatusOr<Credentials> ParseCredentials(std::string_view text);
absl::StatusOr<Credentials> LoadCredentialsFile(const std::string& path);

// What the ARO operator at ARO-RP bf96a7527b authenticates with: its
// DefaultAzureCredential, whose first two sources are the ones its pod is
// configured for (the Deployment sets AZURE_CLIENT_ID, AZURE_TENANT_ID and
// AZURE_CLIENT_SECRET, or AZURE_FEDERATED_TOKEN_FILE under workload
// identity): EnvironmentCredential (a client secret), then
// WorkloadIdentityCredential (a federated token file). `lookup` reads one
// variable (nullopt: unset). When neither is complete the error is the
// chain's, in azidentity's words; recon does not try the managed identity
// or the Azure CLIs the real chain goes on to.
using EnvLookup = std::function<std::optional<std::string>(std::string_view)>;
absl::StatusOr<Credentials> CredentialsFromEnvironment(const EnvLookup& lookup);
// The process environment.
EnvLookup ProcessEnvironment();

// From the Secret's body as the log holds it: `data` values are markers
// (engine/REDACTION.md) that `table` turns back into the bytes this process
// observed; an unredacted body (tests, --no-redact) is read as it is.
absl::StatusOr<Credentials> CredentialsFromSecret(const engine::Json& secret,
                                                  const runtime::SecretTable* table);

}  // namespace recon::azure

#endif  // RECON_ADAPTERS_AZURE_CREDENTIALS_H_
