// The images a bundle needs, for disconnected installs and mirroring: the
// bundle image, its relatedImages, and the RELATED_IMAGE_* variables of the
// deployments in its CSV (spec.install.spec.deployments[].spec.template.
// spec.containers[].env, read from the olm.bundle.object payloads). And the
// check that flags what a disconnected install cannot mirror reliably.
#ifndef RECON_DOMAINS_OLM_CATALOG_RELATED_IMAGES_H_
#define RECON_DOMAINS_OLM_CATALOG_RELATED_IMAGES_H_

#include <string>
#include <vector>

#include "domains/olm/catalog/declcfg.h"

namespace recon::olm {

struct ImageUse {
  std::string image;  // as written
  // "bundle", "relatedImages <name>", or "env RELATED_IMAGE_X
  // (deployment D, container C)".
  std::string source;
};

struct BundleImages {
  std::string package, bundle;
  std::vector<ImageUse> uses;  // bundle first, then relatedImages, then env
  // A bundle object that could not be read (bad base64/JSON, payloads
  // dropped at load): the env part is then incomplete.
  std::string error;
};

// Needs the catalog loaded with keep_payloads (spans readable).
BundleImages CollectBundleImages(const DeclarativeConfig& cfg, const Bundle& bundle);

struct ImageFinding {
  std::string package, bundle, image, source;
  std::string problem;  // "tag reference, no digest", ...
};

// For disconnected installs every image must be pinned by digest: flags
// tag-only references, references that do not parse, RELATED_IMAGE_* values
// missing from relatedImages (oc-mirror mirrors relatedImages only), and an
// unreadable bundle object.
std::vector<ImageFinding> CheckBundleImages(const BundleImages& images);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CATALOG_RELATED_IMAGES_H_
