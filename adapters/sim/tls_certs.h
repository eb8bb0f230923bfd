// Certificates for serving the simulated Azure endpoints over TLS (issue 53,
// step 5): a throwaway CA and one serving certificate whose names are the
// real hosts (management.azure.com, login.microsoftonline.com, ...), so an
// unmodified client that trusts the CA (SSL_CERT_FILE, curl's CAINFO)
// reaches the simulation through /etc/hosts or a proxy. EC P-256 keys from
// OpenSSL; nothing here is meant to protect anything.
#ifndef RECON_ADAPTERS_SIM_TLS_CERTS_H_
#define RECON_ADAPTERS_SIM_TLS_CERTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace recon::sim {

// The hosts the real ARO operator reaches ARM and AAD at in the public
// cloud (ARO-RP pkg/util/azureclient/environments.go), and the loopback
// names a test connects to.
std::vector<std::string> AzureServingHosts();

struct TlsMaterial {
  std::string ca_cert_pem;      // what a client trusts
  std::string server_cert_pem;  // the serving chain's leaf, signed by the CA
  std::string server_key_pem;   // its private key (PKCS#8)
};

// A CA and a serving certificate for `hosts` (DNS names; IPv4/IPv6
// literals become IP SANs), valid from an hour before `now_s` for `days`.
absl::StatusOr<TlsMaterial> MakeServingCertificate(const std::vector<std::string>& hosts, int64_t now_s,
                                                   int days);

// Into `dir` (created): ca.crt (for SSL_CERT_FILE), tls.crt, tls.key
// (mode 0600). Errors name the file.
absl::Status WriteTlsMaterial(const TlsMaterial& m, const std::string& dir);

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_TLS_CERTS_H_
