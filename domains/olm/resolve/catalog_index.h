// A catalog as the resolver sees it (reference §9.1): one entry per
// (bundle, channel), with parsed versions, provided APIs, dependencies,
// OLM's channel order, and indexes by package and by API. Built once per
// Content digest from the catalog's FBC files.
#ifndef RECON_DOMAINS_OLM_RESOLVE_CATALOG_INDEX_H_
#define RECON_DOMAINS_OLM_RESOLVE_CATALOG_INDEX_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "domains/olm/catalog/semver.h"
#include "domains/olm/resolve/predicate.h"

namespace recon::olm {

struct Entry {
  std::string name, package, channel, replaces, skip_range_text, version_text;
  std::vector<std::string> skips;
  std::optional<Range> skip_range;  // nil when missing or unparseable
  std::optional<Version> version;
  std::vector<Gvk> provides;
  std::vector<std::string> labels;
  std::vector<Predicate> dependencies;
  // Every property (payloads aside), for CEL rules; shared by the bundle's entries.
  std::shared_ptr<const std::vector<PropertyText>> properties;
  std::string dependency_error;    // a dependency property that did not parse
  bool legacy_deprecated = false;  // olm.deprecated property
  bool default_channel = false;
  int order = -1;           // position in OLM's channel order (head = 0); -1: never selectable
  int rank = -1;            // position among all ordered entries (default channel, package, channel, order)
  std::string deprecation;  // FBC bundle deprecation message
  bool deprecated = false;
  std::string image;         // the bundle image ("": installed from inline content)
  bool has_objects = false;  // the bundle carries olm.bundle.object manifests

  EntryFacts Facts() const {
    return {package, version ? &*version : nullptr, &provides, &labels, properties.get()};
  }
  // Is this entry a direct upgrade of the installed CSV (name, version)? Returns the edge text.
  std::optional<std::string> Upgrades(std::string_view name, const Version* v) const;
};

struct CatalogChannel {
  std::string name, deprecation;
  bool deprecated = false;
  std::vector<int> order;   // entry indexes, head first (skipped entries left out)
  std::vector<int> all;     // entry indexes in file order
  std::string order_error;  // sortChannel error, if any
};

struct CatalogPackage {
  std::string name, default_channel, deprecation;
  bool deprecated = false;
  std::vector<CatalogChannel> channels;  // sorted by name
  const CatalogChannel* Find(std::string_view channel) const;
};

class CatalogIndex {
 public:
  // Loads and validates FBC files (path → text). A catalog that does not
  // validate is an error: it cannot be used for resolution.
  static absl::StatusOr<std::shared_ptr<const CatalogIndex>> Load(
      const std::vector<std::pair<std::string, std::string>>& files);

  const std::vector<Entry>& entries() const { return entries_; }
  const std::vector<CatalogPackage>& packages() const { return packages_; }
  const CatalogPackage* FindPackage(std::string_view name) const;
  // Ordered entries (rank order) providing an API / of a package.
  const std::vector<int>* Providers(const Gvk& g) const;
  const std::vector<int>* OfPackage(std::string_view package) const;
  // Every ordered entry, in rank order.
  const std::vector<int>& Ranked() const { return ranked_; }

 private:
  std::vector<Entry> entries_;
  std::vector<CatalogPackage> packages_;
  std::map<Gvk, std::vector<int>> providers_;
  std::map<std::string, std::vector<int>, std::less<>> by_package_;
  std::vector<int> ranked_;
};

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_RESOLVE_CATALOG_INDEX_H_
