// Validation problems as a tree (index → package → channel → bundle),
// rendered like operator-registry's error tree but with siblings sorted,
// so output is deterministic.
#ifndef RECON_DOMAINS_OLM_CATALOG_ERROR_TREE_H_
#define RECON_DOMAINS_OLM_CATALOG_ERROR_TREE_H_

#include <string>
#include <vector>

namespace recon::olm {

struct ErrorNode {
  std::string message;
  // Sort key among siblings: leaf errors keep their order and come before
  // named children (packages, channels, bundles), which sort by name.
  std::string sort_name;
  std::vector<ErrorNode> children;

  bool Empty() const { return children.empty(); }
  ErrorNode& Child(std::string message, std::string sort_name);
  void Add(std::string message) { children.push_back({std::move(message), "", {}}); }
  // Drops named children without errors, recursively; true if anything left.
  bool Prune();
  void Sort();
  // The upstream rendering: "├── ", "└── ", "│   " connectors.
  std::string Render() const;
  // Number of leaf errors.
  size_t Count() const;
};

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CATALOG_ERROR_TREE_H_
