// Where a server is and how to reach it: its URL, TLS material and bearer
// token. The k8s adapter fills one from a kubeconfig or the pod's service
// account; the ARM client from its endpoints. Secrets (token, key) never
// appear in messages or logs: Describe() names the auth kind only.
#ifndef RECON_ADAPTERS_HTTP_REST_CONFIG_H_
#define RECON_ADAPTERS_HTTP_REST_CONFIG_H_

#include <string>

#include "absl/status/statusor.h"

namespace recon::http {

struct RestConfig {
  std::string server;  // "https://host:6443", no trailing slash
  // TLS: PEM bytes (from *-data) or file paths (relative ones resolved
  // against the kubeconfig's directory).
  std::string ca_pem, ca_file;
  // The CA bundle for requests outside the cluster (ARM, AAD, probes):
  // unset, the system's; the ARM adapter sets SSL_CERT_FILE's (as the Go
  // programs it stands beside honour it).
  std::string outside_ca_file;
  std::string client_cert_pem, client_cert_file;
  std::string client_key_pem, client_key_file;
  bool insecure_skip_tls_verify = false;  // only when the kubeconfig says so
  std::string tls_server_name;
  std::string token;       // bearer token (never logged)
  std::string token_file;  // re-read when it changes (rotated SA tokens)
  std::string ns;          // the context's namespace ("" when unset)
  std::string context;     // context name, or "in-cluster"
  std::string source;      // file path, or "in-cluster"

  // "https://host:6443 (context ctx in /path, token auth)": safe to log.
  std::string Describe() const;
};

// Reads a whole file (a token, a CA bundle); errors name the path.
absl::StatusOr<std::string> ReadFile(const std::string& path);

}  // namespace recon::http

#endif  // RECON_ADAPTERS_HTTP_REST_CONFIG_H_
