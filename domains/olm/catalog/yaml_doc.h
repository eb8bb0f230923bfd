// Multi-document YAML → Node trees with libyaml's event parser. Payload
// property values (olm.bundle.object, olm.csv.metadata) are cut out of the
// text before parsing and kept as byte spans: they are most of a real
// catalog's bytes and the model never looks inside them.
#ifndef RECON_DOMAINS_OLM_CATALOG_YAML_DOC_H_
#define RECON_DOMAINS_OLM_CATALOG_YAML_DOC_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "domains/olm/catalog/node.h"

namespace recon::olm {

struct DocSlice {
  size_t offset = 0;  // into the file
  size_t length = 0;
  uint32_t line = 1;  // 1-based line of the document's first byte
};

// Splits at lines starting with `---` (only spaces or a comment may follow).
absl::StatusOr<std::vector<DocSlice>> SplitYamlDocuments(std::string_view file);

// Parses one document. Returns a null Node (plain empty scalar) for an empty
// document. `file_index` and the slice offset fill the spans; with
// `excise_payloads` false every value is parsed into the tree.
absl::StatusOr<Node> ParseYamlDocument(std::string_view file, const DocSlice& doc, uint32_t file_index,
                                       bool excise_payloads);

// Parses a YAML fragment (e.g. an excised span) into a tree.
absl::StatusOr<Node> ParseYamlText(std::string_view text);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CATALOG_YAML_DOC_H_
