// A small document tree for FBC blobs, built from JSON or YAML. Scalars keep
// the text as written (YAML 1.1 plain scalars such as `1.10` or `on` are not
// retyped); large payload values may be a Span into the file's bytes instead
// of a parsed subtree, so the graph never pays for them.
#ifndef RECON_DOMAINS_OLM_CATALOG_NODE_H_
#define RECON_DOMAINS_OLM_CATALOG_NODE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace recon::olm {

// An unparsed value: bytes [offset, offset+length) of file `file`, in the
// file's syntax (JSON text, or a YAML block node).
struct Span {
  uint32_t file = 0;
  uint32_t offset = 0;
  uint32_t length = 0;
  bool yaml = false;
};

struct Node {
  // User-provided so clang (with libstdc++'s C++20 constexpr vector) does not
  // instantiate ~vector<pair<string, Node>> while pair<string, Node> is
  // still incomplete; gcc accepts either form.
  Node() {}
  enum class Kind : uint8_t { kScalar, kMap, kSeq, kSpan };
  // kPlain: a YAML plain scalar or a JSON literal (number, true, false, null).
  enum class Style : uint8_t { kPlain, kQuoted };
  Kind kind = Kind::kScalar;
  Style style = Style::kQuoted;
  bool from_json = false;
  std::string text;                                 // scalar text (decoded)
  std::vector<std::pair<std::string, Node>> items;  // kMap, in document order
  std::vector<Node> elems;                          // kSeq
  Span span;                                        // kSpan

  bool IsNull() const;
  // The value, if a map key matches exactly.
  const Node* Get(std::string_view key) const;
};

// Appends `s` as a JSON string, without HTML escaping (opm's encoder setting).
void AppendJsonString(std::string* out, std::string_view s);
// Compact JSON for a tree. A plain scalar becomes a JSON literal when it is
// one (null/true/false/number, YAML `~` and empty → null), otherwise a string.
// Spans must have been resolved by the caller (they print as null).
void AppendJson(std::string* out, const Node& n);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CATALOG_NODE_H_
