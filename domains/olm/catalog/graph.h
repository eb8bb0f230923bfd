// Upgrade graph per channel (§4.3, §5): heads, replaces/skips/skipRange
// edges (targets may be "virtual": named but absent), OLM's channel order,
// the step-by-step upgrade path, and DOT / mermaid pictures.
#ifndef RECON_DOMAINS_OLM_CATALOG_GRAPH_H_
#define RECON_DOMAINS_OLM_CATALOG_GRAPH_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "domains/olm/catalog/model.h"

namespace recon::olm {

enum class EdgeKind : uint8_t { kReplaces, kSkips, kSkipRange };
std::string_view EdgeKindName(EdgeKind k);

// from (newer entry) → to (older name). `to_entry` is -1 for a virtual node.
struct Edge {
  int from;
  int to_entry;
  std::string_view to;
  EdgeKind kind;
};

struct ChannelGraph {
  const ModelChannel* channel = nullptr;
  std::vector<Edge> edges;                      // by from, then kind, then to
  std::vector<std::string_view> virtual_nodes;  // sorted
};

// Edges of one channel. skipRange edges go to every entry whose version is
// in the range (unparseable ranges give none, as OLM sets them to nil).
ChannelGraph BuildChannelGraph(const Model& m, const ModelChannel& c);

// OLM's sortChannel order (head first, skipped entries left out) or its error.
absl::StatusOr<std::vector<int>> ChannelOrder(const ModelChannel& c, std::string_view package);

struct UpgradeStep {
  std::string from, to;
  EdgeKind why;
  std::string detail;  // e.g. the skipRange text
};

// The steps OLM would take from `from` (a CSV name, possibly absent from the
// channel; its version is looked up in the package) to the head.
absl::StatusOr<std::vector<UpgradeStep>> UpgradePath(const Model& m, const ModelPackage& p,
                                                     const ModelChannel& c, std::string_view from);

std::string GraphDot(const Model& m, const ModelPackage& p);
std::string GraphMermaid(const Model& m, const ModelPackage& p);

// Heads and edges of every channel; returns counts (for the bench).
struct GraphTotals {
  size_t channels = 0, heads = 0, edges = 0, replaces = 0, skips = 0, skip_range = 0, virtual_nodes = 0;
};
GraphTotals BuildAllGraphs(const Model& m);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CATALOG_GRAPH_H_
