#include "adapters/http/rest_config.h"

#include <fstream>
#include <sstream>

#include "base/strings.h"

namespace recon::http {

std::string RestConfig::Describe() const {
  std::string auth = !token.empty() || !token_file.empty()                   ? "token auth"
                     : !client_cert_pem.empty() || !client_cert_file.empty() ? "client certificate auth"
                                                                             : "no credentials";
  return recon::StrCat(
      server, " (context ", context, source == context ? "" : recon::StrCat(" in ", source), ", ", auth,
      insecure_skip_tls_verify ? ", TLS verification OFF (insecure-skip-tls-verify)" : "", ")");
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(recon::StrCat(path, ": cannot read"));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace recon::http
