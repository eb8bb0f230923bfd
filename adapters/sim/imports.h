// OpenShift image imports: the outcome rules of a scenario, and how an
// import's result lands in an ImageStream (spec.tags for an
// ImageStreamImport, status.tags[].items on success, an ImportSuccess=False
// condition on failure), as the OpenShift API server writes them.
#ifndef RECON_ADAPTERS_SIM_IMPORTS_H_
#define RECON_ADAPTERS_SIM_IMPORTS_H_

#include <map>
#include <string>
#include <vector>

#include "adapters/sim/api.h"
#include "adapters/sim/scenario.h"

namespace recon::sim {

struct ImportOutcome {
  bool ok = true;
  std::string reason, message;
  int64_t latency_ns = 0;
};

class ImportRules {
 public:
  ImportRules(std::vector<ImportRule> rules, int64_t default_latency_ns)
      : rules_(std::move(rules)), uses_(rules_.size(), 0), default_latency_ns_(default_latency_ns) {}

  // The first rule that matches and says `fail` decides failure; the first
  // that matches and says `latency` decides latency. Counts `times`.
  ImportOutcome Decide(std::string_view image);

 private:
  std::vector<ImportRule> rules_;
  std::vector<int> uses_;
  int64_t default_latency_ns_;
};

// One tag to import: spec.images[i] of an ImageStreamImport, or a
// DockerImage tag of an ImageStream.
struct TagImport {
  std::string tag;
  std::string from;                      // DockerImage reference
  Json import_policy, reference_policy;  // null when absent
  ImportOutcome outcome;
};

// Parses an ImageStreamImport's spec.images (skipping non-DockerImage ones).
absl::StatusOr<std::vector<TagImport>> ImportsOf(const Json& image_stream_import);

// DockerImage tags of an ImageStream: tag → from.name.
std::map<std::string, std::string> DockerImageTags(const Json& image_stream);

// Writes the results into the ImageStream `key` (creating it when missing).
// With `set_spec`, spec.tags gets each tag (an ImageStreamImport with
// import: true); otherwise only status changes and only tags still pointing
// at the same image are written.
ApiResult ApplyImports(Api& api, const ObjectKey& key, const std::vector<TagImport>& imports, bool set_spec,
                       int64_t now_ns);

// "sha256:<hex>", deterministic per image reference.
std::string ImageDigest(std::string_view image);

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_IMPORTS_H_
