// The samples inventory (a Content input, never read from disk here):
// imagestreams and templates keyed by object name, and the ist→image map.
#ifndef RECON_DOMAINS_SAMPLES_INVENTORY_H_
#define RECON_DOMAINS_SAMPLES_INVENTORY_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "engine/json.h"
#include "engine/event.h"

namespace recon::samples {

using engine::Json;

struct Inventory {
  std::map<std::string, Json> streams;    // IS name → file object
  std::map<std::string, Json> templates;  // template name → file object
  // "<imagestream>_<tag>" → DockerImage pull spec as in the file (jenkins
  // streams and ImageStreamTag aliases excluded; never registry-rewritten).
  std::map<std::string, std::string> ist_to_image;
};

// A file is an IS when its parent directory name ends in "imagestreams", a
// template when it ends in "templates"; other files are ignored. Errors read
// as upstream's: "<err> error reading file [<path>]".
absl::StatusOr<Inventory> LoadInventory(const records::ContentFiles& files);

}  // namespace recon::samples

#endif  // RECON_DOMAINS_SAMPLES_INVENTORY_H_
