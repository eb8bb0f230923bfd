// Fuzzes the blang/semver port (domains/olm/catalog/semver.h): skipRange strings and
// versions come from catalogs, which are outside input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "domains/olm/catalog/semver.h"

namespace olm = recon::olm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  auto range = olm::ParseRange(input);
  auto strict = olm::ParseVersion(input);
  auto tolerant = olm::ParseVersionTolerant(input);
  if (strict.ok()) {
    // A strict version prints back to text that parses to an equal version.
    auto again = olm::ParseVersion(strict->String());
    if (!again.ok() || olm::Compare(*strict, *again) != 0) abort();
    if (olm::Compare(*strict, *strict) != 0) abort();
  }
  if (range.ok()) {
    for (const auto& group : range->groups()) {
      for (const auto& c : group) (void)range->Matches(c.v);
    }
    if (tolerant.ok()) (void)range->Matches(*tolerant);
  }
  (void)olm::GoQuote(input);
  return 0;
}
