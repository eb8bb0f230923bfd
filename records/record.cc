#include "records/record.h"

#include <openssl/evp.h>

#include <algorithm>
#include <array>

namespace recon::records {
namespace {
constexpr std::array<std::string_view, kEventTypeCount> kNames = {
    "Added", "Modified", "Deleted", "Timer", "Probe", "ActionResult", "Cluster", "Content"};

void PutLength(EVP_MD_CTX* ctx, uint64_t n) {
  unsigned char buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = static_cast<unsigned char>(n >> (8 * i));
  EVP_DigestUpdate(ctx, buf, sizeof(buf));
}
}  // namespace

std::string_view EventTypeName(EventType type) { return kNames[static_cast<size_t>(type)]; }

std::optional<EventType> ParseEventType(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<EventType>(i);
  }
  return std::nullopt;
}

std::string ContentDigest(const ContentFiles& files) {
  std::vector<const std::pair<std::string, std::string>*> sorted;
  sorted.reserve(files.size());
  for (const auto& f : files) sorted.push_back(&f);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->first < b->first; });
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  for (const auto* f : sorted) {
    PutLength(ctx, f->first.size());
    EVP_DigestUpdate(ctx, f->first.data(), f->first.size());
    PutLength(ctx, f->second.size());
    EVP_DigestUpdate(ctx, f->second.data(), f->second.size());
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx, md, &len);
  EVP_MD_CTX_free(ctx);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "sha256:";
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[md[i] >> 4]);
    out.push_back(kHex[md[i] & 15]);
  }
  return out;
}

}  // namespace recon::records
