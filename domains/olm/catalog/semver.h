// Semantic versions and ranges with blang/semver v4 semantics, quirks
// included (see reference/olm.md §7): catalogs were validated by that code,
// so matching it exactly decides which upgrade edges exist.
#ifndef RECON_DOMAINS_OLM_CATALOG_SEMVER_H_
#define RECON_DOMAINS_OLM_CATALOG_SEMVER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "base/go_quote.h"

namespace recon::olm {

struct PreId {
  bool numeric = false;
  uint64_t num = 0;
  std::string str;
};

struct Version {
  uint64_t major = 0, minor = 0, patch = 0;
  std::vector<PreId> pre;
  std::vector<std::string> build;

  // major.minor.patch[-pre][+build], build kept although compare ignores it.
  std::string String() const;
};

// Strict parse (blang Parse); error texts are upstream's.
absl::StatusOr<Version> ParseVersion(std::string_view s);
// blang ParseTolerant: trims, strips "v", leading zeros, pads short versions.
absl::StatusOr<Version> ParseVersionTolerant(std::string_view s);

// -1, 0, 1; build metadata ignored.
int Compare(const Version& a, const Version& b);
// Compares prerelease-style identifier lists (also used for releases).
int ComparePre(const std::vector<PreId>& a, const std::vector<PreId>& b);
// Parses one prerelease identifier (blang NewPRVersion).
absl::StatusOr<PreId> ParsePreId(std::string_view s);

// A parsed range: OR of AND groups of comparators.
class Range {
 public:
  enum class Op : uint8_t { kEq, kNe, kGt, kGe, kLt, kLe };
  struct Comparator {
    Op op;
    Version v;
  };
  bool Matches(const Version& v) const;
  const std::vector<std::vector<Comparator>>& groups() const { return groups_; }

 private:
  friend absl::StatusOr<Range> ParseRange(std::string_view s);
  std::vector<std::vector<Comparator>> groups_;
};

// blang ParseRange with its tokenizer and wildcard quirks.
absl::StatusOr<Range> ParseRange(std::string_view s);

// Go's %q for the ASCII/UTF-8 strings catalogs hold.
using recon::GoQuote;

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CATALOG_SEMVER_H_
