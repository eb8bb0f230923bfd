#include "adapters/sim/tls_certs.h"

#include <arpa/inet.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <tuple>

#include "base/strings.h"

namespace recon::sim {
namespace {

using Key = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using Cert = std::unique_ptr<X509, decltype(&X509_free)>;

absl::Status OpenSslError(std::string_view what) {
  return absl::InternalError(recon::StrCat("tls: ", what, " failed (OpenSSL error ", ERR_get_error(), ")"));
}

absl::StatusOr<Key> NewKey() {
  Key key(EVP_EC_gen("P-256"), EVP_PKEY_free);
  if (!key) return OpenSslError("EC P-256 key generation");
  return key;
}

std::string Pem(int (*write)(BIO*, void*), void* object) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
  if (!bio || write(bio.get(), object) != 1) return "";
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

int WriteCert(BIO* b, void* x) { return PEM_write_bio_X509(b, static_cast<X509*>(x)); }
int WriteKey(BIO* b, void* k) {
  return PEM_write_bio_PrivateKey(b, static_cast<EVP_PKEY*>(k), nullptr, nullptr, 0, nullptr, nullptr);
}

bool AddExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) return false;
  bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

// An unsigned certificate for `key` named `cn`, issued by `issuer` (its
// own when null: a CA), with a random serial.
absl::StatusOr<Cert> NewCert(EVP_PKEY* key, const std::string& cn, X509* issuer, int64_t now_s, int days) {
  Cert cert(X509_new(), X509_free);
  if (!cert) return OpenSslError("X509_new");
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1) return OpenSslError("RAND_bytes");
  serial[0] &= 0x7f;  // positive
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  ASN1_TIME_set(X509_getm_notBefore(cert.get()), static_cast<time_t>(now_s - 3600));
  ASN1_TIME_set(X509_getm_notAfter(cert.get()), static_cast<time_t>(now_s + int64_t{days} * 86400));
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("recon simulation"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn.c_str()), -1,
                             -1, 0);
  X509_set_issuer_name(cert.get(), issuer != nullptr ? X509_get_subject_name(issuer) : name);
  if (X509_set_pubkey(cert.get(), key) != 1) return OpenSslError("X509_set_pubkey");
  X509* parent = issuer != nullptr ? issuer : cert.get();
  if (!AddExtension(cert.get(), parent, NID_subject_key_identifier, "hash") ||
      !AddExtension(cert.get(), parent, NID_authority_key_identifier, "keyid:always")) {
    return OpenSslError("key identifiers");
  }
  if (issuer == nullptr) {
    if (!AddExtension(cert.get(), parent, NID_basic_constraints, "critical,CA:TRUE") ||
        !AddExtension(cert.get(), parent, NID_key_usage, "critical,keyCertSign,cRLSign")) {
      return OpenSslError("CA extensions");
    }
  }
  return cert;
}

}  // namespace

std::vector<std::string> AzureServingHosts() {
  return {"management.azure.com", "login.microsoftonline.com", "graph.microsoft.com", "localhost",
          "127.0.0.1"};
}

absl::StatusOr<TlsMaterial> MakeServingCertificate(const std::vector<std::string>& hosts, int64_t now_s,
                                                   int days) {
  if (hosts.empty()) return absl::InvalidArgumentError("tls: a serving certificate needs at least one host");
  auto ca_key = NewKey();
  if (!ca_key.ok()) return ca_key.status();
  auto ca = NewCert(ca_key->get(), "recon simulation CA", nullptr, now_s, days);
  if (!ca.ok()) return ca.status();
  if (X509_sign(ca->get(), ca_key->get(), EVP_sha256()) == 0) return OpenSslError("signing the CA");

  auto key = NewKey();
  if (!key.ok()) return key.status();
  auto cert = NewCert(key->get(), hosts[0], ca->get(), now_s, days);
  if (!cert.ok()) return cert.status();
  std::string san;
  for (const std::string& h : hosts) {
    unsigned char buf[16];
    bool ip = inet_pton(AF_INET, h.c_str(), buf) == 1 || inet_pton(AF_INET6, h.c_str(), buf) == 1;
    recon::StrAppend(&san, san.empty() ? "" : ",", ip ? "IP:" : "DNS:", h);
  }
  if (!AddExtension(cert->get(), ca->get(), NID_subject_alt_name, san) ||
      !AddExtension(cert->get(), ca->get(), NID_basic_constraints, "critical,CA:FALSE") ||
      !AddExtension(cert->get(), ca->get(), NID_key_usage, "critical,digitalSignature,keyEncipherment") ||
      !AddExtension(cert->get(), ca->get(), NID_ext_key_usage, "serverAuth")) {
    return OpenSslError("serving-certificate extensions");
  }
  if (X509_sign(cert->get(), ca_key->get(), EVP_sha256()) == 0)
    return OpenSslError("signing the certificate");

  TlsMaterial m;
  m.ca_cert_pem = Pem(WriteCert, ca->get());
  m.server_cert_pem = Pem(WriteCert, cert->get());
  m.server_key_pem = Pem(WriteKey, key->get());
  if (m.ca_cert_pem.empty() || m.server_cert_pem.empty() || m.server_key_pem.empty()) {
    return OpenSslError("PEM encoding");
  }
  return m;
}

absl::Status WriteTlsMaterial(const TlsMaterial& m, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return absl::InternalError(recon::StrCat(dir, ": cannot create the directory: ", ec.message()));
  for (const auto& [name, text, mode] :
       {std::tuple{"ca.crt", &m.ca_cert_pem, 0644}, std::tuple{"tls.crt", &m.server_cert_pem, 0644},
        std::tuple{"tls.key", &m.server_key_pem, 0600}}) {
    std::string path = recon::StrCat(dir, "/", name);
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out << *text;
      if (!out.good()) return absl::InternalError(recon::StrCat(path, ": cannot write"));
    }
    if (chmod(path.c_str(), static_cast<mode_t>(mode)) != 0) {
      return absl::InternalError(recon::StrCat(path, ": cannot set its mode"));
    }
  }
  return absl::OkStatus();
}

}  // namespace recon::sim
