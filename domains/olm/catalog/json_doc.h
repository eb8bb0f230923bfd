// A stream of concatenated JSON objects → Node trees (simdjson On-Demand).
// Payload property values are kept as spans of the buffer when excising.
#ifndef RECON_DOMAINS_OLM_CATALOG_JSON_DOC_H_
#define RECON_DOMAINS_OLM_CATALOG_JSON_DOC_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "domains/olm/catalog/node.h"

namespace recon::olm {

// `buf` must have at least 64 bytes of capacity beyond its size (simdjson
// padding); the loader reserves it.
// Each document is handed to `fn` as soon as it is built (memory stays flat).
absl::Status ParseJsonStream(const std::string& buf, uint32_t file_index, bool excise_payloads,
                             const std::function<absl::Status(Node&&, uint32_t index)>& fn);

// One JSON value (e.g. a span) → tree.
absl::StatusOr<Node> ParseJsonText(std::string_view text);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CATALOG_JSON_DOC_H_
