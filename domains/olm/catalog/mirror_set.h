// What a disconnected cluster must mirror for a set of subscriptions
// (`recon mirror-list`): each subscription resolved in its catalog to the
// bundles from its installed (or starting) CSV to the channel head, the
// images of those bundles (bundle image, relatedImages, RELATED_IMAGE_*
// env), and per catalog, package and channel the lowest version to mirror
// from, as oc-mirror's ImageSetConfiguration names it.
#ifndef RECON_DOMAINS_OLM_CATALOG_MIRROR_SET_H_
#define RECON_DOMAINS_OLM_CATALOG_MIRROR_SET_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "domains/olm/catalog/declcfg.h"
#include "domains/olm/catalog/model.h"
#include "engine/json.h"

namespace recon::olm {

// A recorded run's catalogs are Content named olm/catalog/<ns>/<name>.
inline constexpr std::string_view kCatalogContentPrefix = "olm/catalog/";

struct MirrorSubscription {
  std::string where;  // for messages: "FILE: Subscription ns/name" or "--package P"
  std::string package, channel, from;
  std::string source;  // "<sourceNamespace>/<source>", "" when not given
};

// A Subscription object → what to mirror for it: spec.name and
// spec.channel; from status.installedCSV, else spec.startingCSV; its
// catalog from spec.source (and sourceNamespace, else its own namespace).
absl::StatusOr<MirrorSubscription> MirrorSubscriptionOf(const engine::Json& subscription,
                                                        const std::string& where);

// A loaded catalog (loaded with its payloads, so RELATED_IMAGE_* env is
// readable): `name` is its directory or its Content name.
struct MirrorCatalog {
  std::string name;
  const DeclarativeConfig* cfg = nullptr;
  const Model* model = nullptr;  // of cfg
};

struct MirrorSet {
  std::vector<std::string> images;  // every bundle's images, in order, with repeats
  // Bundles whose object could not be read: their env images are missing.
  struct Warning {
    std::string bundle, error;
  };
  std::vector<Warning> warnings;
  // catalog name → package → channel → the lowest version any subscription
  // starts from ("" = the head only).
  std::map<std::string, std::map<std::string, std::map<std::string, std::string>>> channels;
};

// Resolves every subscription (its own catalog first, then each catalog in
// order) into `out`. On an error (an unknown package or channel, no upgrade
// path from its CSV), `out` holds what the subscriptions before it gave.
absl::Status ComputeMirrorSet(const std::vector<MirrorSubscription>& subscriptions,
                              const std::vector<MirrorCatalog>& catalogs, MirrorSet* out);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CATALOG_MIRROR_SET_H_
