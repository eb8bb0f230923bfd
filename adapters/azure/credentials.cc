#include "adapters/azure/credentials.h"

#include <cctype>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "adapters/http/rest_config.h"
#include "base/strings.h"

namespace recon::azure {
namespace {

std::string Lowered(std::string_view s) { return absl::AsciiStrToLower(Av(s)); }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
    s = s.substr(1, s.size() - 2);
  return s;
}

// False for a key that is not one of ours.
bool Set(Credentials& c, std::string_view key, std::string value) {
  std::string k = Lowered(key);
  if (k.rfind("azure_", 0) != 0) k = "azure_" + k;
  if (k == "azure_client_id")
    c.client_id = std::move(value);
  else if (k == "azure_client_secret")
    c.client_secret = std::move(value);
  else if (k == "azure_tenant_id")
    c.tenant_id = std::move(value);
  else if (k == "azure_subscription_id")
    c.subscription_id = std::move(value);
  else if (k == "azure_resource_prefix")
    c.resource_prefix = std::move(value);
  else if (k == "azure_region")
    c.region = std::move(value);
  else if (k == "azure_federated_token_file")
    c.federated_token_file = std::move(value);
  else
    return false;
  return true;
}

absl::Status Check(const Credentials& c, std::string_view where) {
  if (c.complete()) return absl::OkStatus();
  std::string missing;
  if (c.client_id.empty()) missing += " azure_client_id";
  if (c.tenant_id.empty()) missing += " azure_tenant_id";
  if (c.client_secret.empty() && c.federated_token_file.empty())
    missing += " azure_client_secret (or azure_federated_token_file)";
  return absl::InvalidArgumentError(recon::StrCat(where, ": missing", missing));
}

}  // namespace

std::string Credentials::Describe() const {
  return recon::StrCat("client ", client_id, " in tenant ", tenant_id,
                       federated_token_file.empty() ? "" : " (workload identity)");
}

absl::StatusOr<Credentials> ParseCredentials(std::string_view text) {
  Credentials c;
  std::string_view t = Trim(text);
  if (!t.empty() && t.front() == '{') {
    auto j = engine::ParseJson(t);
    if (!j.ok() || !j->is_object()) return absl::InvalidArgumentError("credentials: not a JSON object");
    for (auto it = j->begin(); it != j->end(); ++it)
      if (it.value().is_string()) Set(c, it.key(), it.value().get<std::string>());
    if (auto s = Check(c, "credentials"); !s.ok()) return s;
    return c;
  }
  int line_no = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    line = Trim(line);
    if (line.empty() || line.front() == '#') continue;
    if (line.rfind("export ", 0) == 0) line.remove_prefix(7);
    size_t sep = line.find_first_of("=:");
    if (sep == std::string_view::npos)
      return absl::InvalidArgumentError(recon::StrCat("credentials line ", line_no, ": expected key=value"));
    Set(c, Trim(line.substr(0, sep)), std::string(Trim(line.substr(sep + 1))));
  }
  if (auto s = Check(c, "credentials"); !s.ok()) return s;
  return c;
}

absl::StatusOr<Credentials> LoadCredentialsFile(const std::string& path) {
  auto text = http::ReadFile(path);
  if (!text.ok()) return text.status();
  auto c = ParseCredentials(*text);
  if (!c.ok()) return absl::InvalidArgumentError(recon::StrCat(path, ": ", Sv(c.status().message())));
  return c;
}

absl::StatusOr<Credentials> CredentialsFromSecret(const engine::Json& secret,
                                                  const runtime::SecretTable* table) {
  Credentials c;
  auto value = [&](const engine::Json& v, bool base64) -> absl::StatusOr<std::string> {
    std::string s = v.is_string() ? v.get<std::string>() : "";
    if (s.rfind("recon-redacted:", 0) == 0) {
      std::optional<runtime::SecretValue> real = table ? table->Find(s) : std::nullopt;
      // Not observed by this process (e.g. restarted before the Secret's
      // next observation): unknown until then.
      if (!real) return absl::UnavailableError("the Secret's values were not observed by this process yet");
      return real->value;  // kBytes: the decoded value
    }
    if (!base64) return s;
    std::string plain;
    if (!absl::Base64Unescape(Av(s), &plain)) return absl::InvalidArgumentError("a data value is not base64");
    return plain;
  };
  for (auto [field, b64] : {std::pair{"data", true}, std::pair{"stringData", false}}) {
    const engine::Json& d = engine::Path(secret, {field});
    if (!d.is_object()) continue;
    for (auto it = d.begin(); it != d.end(); ++it) {
      auto v = value(it.value(), b64);
      if (!v.ok())
        return absl::Status(v.status().code(),
                            recon::StrCat("Secret ", kCredentialsNamespace, "/", kCredentialsSecret, " key ",
                                          it.key(), ": ", Sv(v.status().message())));
      Set(c, it.key(), std::move(*v));
    }
  }
  if (auto s = Check(c, recon::StrCat("Secret ", kCredentialsNamespace, "/", kCredentialsSecret)); !s.ok())
    return s;
  return c;
}

absl::StatusOr<Credentials> CredentialsFromEnvironment(const EnvLookup& lookup) {
  auto get = [&](std::string_view name) { return lookup(name).value_or(""); };
  Credentials c;
  c.tenant_id = get("AZURE_TENANT_ID");
  c.client_id = get("AZURE_CLIENT_ID");
  // EnvironmentCredential (azidentity environment_credential.go).
  std::string env_error;
  if (c.tenant_id.empty()) {
    env_error = "missing environment variable AZURE_TENANT_ID";
  } else if (c.client_id.empty()) {
    env_error = "missing environment variable AZURE_CLIENT_ID";
  } else if (std::string secret = get("AZURE_CLIENT_SECRET"); !secret.empty()) {
    c.client_secret = std::move(secret);
    return c;
  } else if (!get("AZURE_CLIENT_CERTIFICATE_PATH").empty() || !get("AZURE_USERNAME").empty()) {
    env_error = "a certificate or a username and password: not supported by recon";
  } else {
    env_error =
        "incomplete environment variable configuration. Only AZURE_TENANT_ID and AZURE_CLIENT_ID are set";
  }
  // WorkloadIdentityCredential (workload_identity.go).
  std::string wi_error;
  c.federated_token_file = get("AZURE_FEDERATED_TOKEN_FILE");
  if (c.client_id.empty()) {
    wi_error = "no client ID specified. Check pod configuration or set ClientID in the options";
  } else if (c.federated_token_file.empty()) {
    wi_error = "no token file specified. Check pod configuration or set TokenFilePath in the options";
  } else if (c.tenant_id.empty()) {
    wi_error = "no tenant ID specified. Check pod configuration or set TenantID in the options";
  } else {
    return c;
  }
  // The chain's error (chained_token_credential.go), as GetToken reports it.
  return absl::FailedPreconditionError(recon::StrCat(
      "DefaultAzureCredential: failed to acquire a token.\nAttempted credentials:\n\tEnvironmentCredential: ",
      env_error, "\n\tWorkloadIdentityCredential: ", wi_error));
}

EnvLookup ProcessEnvironment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

}  // namespace recon::azure
