#include "domains/olm/catalog/error_tree.h"

#include <algorithm>

namespace recon::olm {

ErrorNode& ErrorNode::Child(std::string message, std::string sort_name) {
  for (auto& c : children) {
    if (!c.sort_name.empty() && c.sort_name == sort_name && c.message == message) return c;
  }
  children.push_back({std::move(message), std::move(sort_name), {}});
  return children.back();
}

bool ErrorNode::Prune() {
  std::vector<ErrorNode> kept;
  for (auto& c : children) {
    if (c.sort_name.empty() || c.Prune()) kept.push_back(std::move(c));
  }
  children = std::move(kept);
  return !children.empty();
}

void ErrorNode::Sort() {
  std::stable_sort(children.begin(), children.end(), [](const ErrorNode& a, const ErrorNode& b) {
    bool an = !a.sort_name.empty(), bn = !b.sort_name.empty();
    if (an != bn) return !an;
    return an && a.sort_name < b.sort_name;
  });
  for (auto& c : children) c.Sort();
}

size_t ErrorNode::Count() const {
  if (children.empty()) return 1;
  size_t n = 0;
  for (const auto& c : children) n += c.Count();
  return n;
}

namespace {

void RenderInto(const ErrorNode& n, const std::string& prefix, const std::string& child_prefix,
                std::string* out) {
  *out += prefix;
  *out += n.message;
  if (!n.children.empty()) *out += ":";
  *out += "\n";
  for (size_t i = 0; i < n.children.size(); ++i) {
    bool last = i + 1 == n.children.size();
    RenderInto(n.children[i], child_prefix + (last ? "└── " : "├── "),
               child_prefix + (last ? "    " : "│   "), out);
  }
}

}  // namespace

std::string ErrorNode::Render() const {
  std::string out;
  RenderInto(*this, "", "", &out);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

}  // namespace recon::olm
