// Lowercase hex SHA-256 of bytes (OpenSSL's EVP digest): for names and
// checksums that must equal another program's (OLM's unpack names, the
// checksums ARO puts on pod templates). Users link OpenSSL::Crypto.
#ifndef RECON_BASE_SHA256_H_
#define RECON_BASE_SHA256_H_

#include <openssl/evp.h>

#include <string>
#include <string_view>

namespace recon {

inline std::string Sha256Hex(std::string_view bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[md[i] >> 4]);
    out.push_back(kHex[md[i] & 15]);
  }
  return out;
}

}  // namespace recon

#endif  // RECON_BASE_SHA256_H_
