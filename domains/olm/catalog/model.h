// The catalog model (operator-registry's alpha/model): packages → channels →
// bundles, converted from a DeclarativeConfig and validated. Unlike
// upstream's fail-fast conversion, every problem is collected into one
// error tree (the upstream texts, with the blob's file location appended).
#ifndef RECON_DOMAINS_OLM_CATALOG_MODEL_H_
#define RECON_DOMAINS_OLM_CATALOG_MODEL_H_

#include <optional>
#include <string>
#include <vector>

#include "domains/olm/catalog/declcfg.h"
#include "domains/olm/catalog/error_tree.h"
#include "domains/olm/catalog/semver.h"

namespace recon::olm {

// A bundle as it appears in one channel: shared bundle data plus that
// channel's replaces/skips/skipRange.
struct ChannelBundle {
  std::string name;
  int bundle = -1;  // index into Model::bundles, -1 if no olm.bundle blob
  std::string replaces, skip_range;
  std::vector<std::string> skips;
};

struct ModelChannel {
  std::string name;
  std::vector<ChannelBundle> bundles;  // entry order
  std::string deprecation;
  bool deprecated = false;
  bool synthesized = false;  // default channel named but absent
  Location loc;
};

struct ModelBundle {
  const Bundle* blob = nullptr;
  std::string version_string;  // as written in olm.package
  std::optional<Version> version;
  std::string release;
  std::string deprecation;
  bool deprecated = false;
};

struct ModelPackage {
  std::string name, default_channel;
  std::vector<ModelChannel> channels;  // sorted by name
  std::vector<int> bundles;            // indexes into Model::bundles, sorted by name
  std::string deprecation;
  bool deprecated = false;
  Location loc;
};

struct Model {
  const DeclarativeConfig* cfg = nullptr;
  std::vector<ModelPackage> packages;  // sorted by name
  std::vector<ModelBundle> bundles;    // parallel to cfg->bundles

  const ModelPackage* FindPackage(std::string_view name) const;
  const ModelChannel* FindChannel(const ModelPackage& p, std::string_view name) const;
};

struct ValidateOptions {
  // HEAD-only checks (absent from opm v1.26.5).
  bool duplicate_versions = true;
  bool skip_range_syntax = true;
};

// Converts and validates. `errors` gets the whole tree (root "invalid
// index"); it is empty (no children) when the catalog is valid.
Model BuildModel(const DeclarativeConfig& cfg, ErrorNode* errors, const ValidateOptions& options = {});

// §4.1: the single head, or the upstream error.
absl::StatusOr<std::string> ChannelHead(const ModelChannel& c);
// §4.2 replaces-chain check (head, cycle, stranded).
absl::Status ValidateReplacesChain(const ModelChannel& c);

// k8s IsDNS1123Label messages (empty when valid).
std::vector<std::string> Dns1123LabelErrors(std::string_view s);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CATALOG_MODEL_H_
