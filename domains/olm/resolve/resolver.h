// Namespace resolution (reference §9): subscriptions, installed CSVs (the
// @existing catalog) and the catalogs in scope become a solver problem;
// the solution becomes the operators to install, each with why.
#ifndef RECON_DOMAINS_OLM_RESOLVE_RESOLVER_H_
#define RECON_DOMAINS_OLM_RESOLVE_RESOLVER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "domains/olm/resolve/catalog_index.h"

namespace recon::olm {

struct CatalogRef {
  std::string name, ns;
  int priority = 0;
  std::shared_ptr<const CatalogIndex> index;
};

struct SubscriptionInput {
  std::string name, package, channel, source, source_ns, starting_csv, installed_csv;
};

// An installed CSV: an entry of the @existing catalog (channel "", no replaces).
struct ExistingCsv {
  Entry entry;               // name, package (may be empty), version, provides, requires
  std::string subscription;  // the subscription whose installedCSV names it, or ""
};

struct ResolveInput {
  std::string ns;
  std::vector<CatalogRef> catalogs;  // every catalog in scope (order does not matter)
  std::vector<SubscriptionInput> subscriptions;
  std::vector<ExistingCsv> existing;
};

struct ResolvedOperator {
  std::string csv, package, channel, catalog, catalog_ns, version;
  std::string replaces;      // the installed CSV it upgrades (subscription candidates), else the catalog's
  std::string starting_csv;  // set when chosen through startingCSV
  std::string subscription;  // the subscription it is a candidate of, "" for a dependency
  std::string why;           // plain words: the edge taken, or why this bundle
};

struct ResolveResult {
  std::vector<ResolvedOperator> operators;  // new bundles only (installed ones dropped), sorted by csv
  size_t variables = 0;
};

// FailedPrecondition = NotSatisfiable ("constraints not satisfiable: ...");
// any other error prevented resolution (bad catalog order, bad range...).
absl::StatusOr<ResolveResult> Resolve(const ResolveInput& in);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_RESOLVE_RESOLVER_H_
