#include "domains/olm/catalog/graph.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "base/strings.h"

namespace recon::olm {
namespace {

const Version* VersionOf(const Model& m, const ChannelBundle& cb) {
  if (cb.bundle < 0) return nullptr;
  const auto& v = m.bundles[cb.bundle].version;
  return v ? &*v : nullptr;
}

std::string DotQuote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";  // DOT's line break inside a label
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string_view EdgeKindName(EdgeKind k) {
  switch (k) {
    case EdgeKind::kReplaces:
      return "replaces";
    case EdgeKind::kSkips:
      return "skips";
    case EdgeKind::kSkipRange:
      return "skipRange";
  }
  return "";
}

ChannelGraph BuildChannelGraph(const Model& m, const ModelChannel& c) {
  ChannelGraph g;
  g.channel = &c;
  const auto& bs = c.bundles;
  std::unordered_map<std::string_view, int> index;
  index.reserve(bs.size());
  for (size_t i = 0; i < bs.size(); ++i) index.emplace(bs[i].name, static_cast<int>(i));
  std::unordered_set<std::string_view> virtuals;
  auto add = [&](int from, std::string_view to, EdgeKind kind) {
    auto it = index.find(to);
    int t = it == index.end() ? -1 : it->second;
    if (t < 0) virtuals.insert(to);
    g.edges.push_back({from, t, to, kind});
  };
  for (size_t i = 0; i < bs.size(); ++i) {
    const ChannelBundle& b = bs[i];
    int from = static_cast<int>(i);
    if (!b.replaces.empty()) add(from, b.replaces, EdgeKind::kReplaces);
    for (const auto& s : b.skips) {
      if (!s.empty()) add(from, s, EdgeKind::kSkips);
    }
    if (!b.skip_range.empty()) {
      auto r = ParseRange(b.skip_range);
      if (!r.ok()) continue;
      for (size_t j = 0; j < bs.size(); ++j) {
        if (j == i) continue;
        const Version* v = VersionOf(m, bs[j]);
        if (v && r->Matches(*v))
          g.edges.push_back({from, static_cast<int>(j), bs[j].name, EdgeKind::kSkipRange});
      }
    }
  }
  g.virtual_nodes.assign(virtuals.begin(), virtuals.end());
  std::sort(g.virtual_nodes.begin(), g.virtual_nodes.end());
  return g;
}

GraphTotals BuildAllGraphs(const Model& m) {
  GraphTotals t;
  for (const auto& p : m.packages) {
    for (const auto& c : p.channels) {
      ++t.channels;
      if (ChannelHead(c).ok()) ++t.heads;
      ChannelGraph g = BuildChannelGraph(m, c);
      t.edges += g.edges.size();
      t.virtual_nodes += g.virtual_nodes.size();
      for (const auto& e : g.edges) {
        if (e.kind == EdgeKind::kReplaces) ++t.replaces;
        if (e.kind == EdgeKind::kSkips) ++t.skips;
        if (e.kind == EdgeKind::kSkipRange) ++t.skip_range;
      }
    }
  }
  return t;
}

absl::StatusOr<std::vector<int>> ChannelOrder(const ModelChannel& c, std::string_view package) {
  const auto& bs = c.bundles;
  std::unordered_map<std::string_view, int> present;
  for (size_t i = 0; i < bs.size(); ++i) present.emplace(bs[i].name, static_cast<int>(i));
  std::vector<bool> replaced(bs.size(), false), skipped(bs.size(), false);
  std::vector<int> next(bs.size(), -1);
  for (size_t i = 0; i < bs.size(); ++i) {
    if (auto it = present.find(bs[i].replaces); it != present.end()) {
      replaced[it->second] = true;
      next[i] = it->second;
    }
    for (const auto& s : bs[i].skips) {
      if (auto it = present.find(s); it != present.end()) {
        replaced[it->second] = true;
        skipped[it->second] = true;
      }
    }
  }
  std::vector<std::vector<int>> chains;
  for (size_t i = 0; i < bs.size(); ++i) {
    if (replaced[i]) continue;
    std::vector<int> chain;
    std::vector<bool> seen(bs.size(), false);
    for (int k = static_cast<int>(i); k >= 0; k = next[k]) {
      if (seen[k]) {
        return absl::FailedPreconditionError(
            StrCat("a cycle exists in the chain of replacement beginning with ", GoQuote(bs[i].name),
                   " in channel ", GoQuote(c.name), " of package ", GoQuote(package)));
      }
      seen[k] = true;
      if (!skipped[k]) chain.push_back(k);
    }
    chains.push_back(std::move(chain));
  }
  if (chains.empty()) {
    return absl::FailedPreconditionError(
        StrCat("no channel heads (entries not replaced by another entry) found in channel ", GoQuote(c.name),
               " of package ", GoQuote(package)));
  }
  if (chains.size() > 1) {
    std::string list;
    for (size_t i = 0; i < chains.size(); ++i) {
      const auto& ch = chains[i];
      std::string one = ch.empty()       ? "[]"
                        : ch.size() == 1 ? bs[ch[0]].name
                                         : StrCat(bs[ch.front()].name, "...", bs[ch.back()].name);
      StrAppend(&list, i ? ", " : "", one);
    }
    return absl::FailedPreconditionError(
        StrCat("a unique replacement chain within a channel is required to determine the relative order "
               "between channel "
               "entries, but ",
               chains.size(), " replacement chains were found in channel ", GoQuote(c.name), " of package ",
               GoQuote(package), ": ", list));
  }
  return chains[0];
}

absl::StatusOr<std::vector<UpgradeStep>> UpgradePath(const Model& m, const ModelPackage& p,
                                                     const ModelChannel& c, std::string_view from) {
  auto order = ChannelOrder(c, p.name);
  if (!order.ok()) return order.status();
  std::optional<Version> version;
  for (int bi : p.bundles) {
    if (m.cfg->bundles[bi].name == from) version = m.bundles[bi].version;
  }
  std::vector<std::optional<Range>> ranges(c.bundles.size());
  for (size_t i = 0; i < c.bundles.size(); ++i) {
    if (c.bundles[i].skip_range.empty()) continue;
    if (auto r = ParseRange(c.bundles[i].skip_range); r.ok()) ranges[i] = std::move(*r);
  }
  std::vector<UpgradeStep> steps;
  std::string cur(from);
  std::optional<Version> cur_version = version;
  std::unordered_set<std::string> visited{cur};
  const std::string& head = c.bundles[order->front()].name;
  while (cur != head) {
    bool moved = false;
    for (int k : *order) {
      const ChannelBundle& e = c.bundles[k];
      if (e.name == cur) continue;
      UpgradeStep step{cur, e.name, EdgeKind::kReplaces, ""};
      if (e.replaces == cur) {
        step.why = EdgeKind::kReplaces;
      } else if (std::find(e.skips.begin(), e.skips.end(), cur) != e.skips.end()) {
        step.why = EdgeKind::kSkips;
      } else if (ranges[k] && cur_version && ranges[k]->Matches(*cur_version)) {
        step.why = EdgeKind::kSkipRange;
        step.detail = e.skip_range;
      } else {
        continue;
      }
      if (!visited.insert(e.name).second) return absl::FailedPreconditionError("upgrade path loops");
      steps.push_back(std::move(step));
      cur = e.name;
      cur_version = VersionOf(m, e) ? std::optional<Version>(*VersionOf(m, e)) : std::nullopt;
      moved = true;
      break;
    }
    if (!moved) {
      return absl::NotFoundError(StrCat("no upgrade from ", GoQuote(cur), " in channel ", GoQuote(c.name),
                                        " of package ", GoQuote(p.name), " (head is ", GoQuote(head), ")"));
    }
  }
  return steps;
}

std::string GraphDot(const Model& m, const ModelPackage& p) {
  std::string out =
      StrCat("digraph ", DotQuote(p.name), " {\n  rankdir=RL;\n  node [shape=box, fontsize=10];\n");
  for (size_t ci = 0; ci < p.channels.size(); ++ci) {
    const ModelChannel& c = p.channels[ci];
    auto head = ChannelHead(c);
    ChannelGraph g = BuildChannelGraph(m, c);
    std::string id = StrCat("c", ci, "_");
    StrAppend(&out, "  subgraph ", DotQuote(StrCat("cluster_", ci)),
              " {\n    label=", DotQuote(StrCat(c.name, c.name == p.default_channel ? " (default)" : "")),
              ";\n");
    for (size_t i = 0; i < c.bundles.size(); ++i) {
      const Version* v = VersionOf(m, c.bundles[i]);
      bool is_head = head.ok() && *head == c.bundles[i].name;
      StrAppend(&out, "    ", DotQuote(StrCat(id, c.bundles[i].name)),
                " [label=", DotQuote(StrCat(c.bundles[i].name, v ? StrCat("\n", v->String()) : "")),
                is_head ? ", style=bold, color=darkgreen" : "", "];\n");
    }
    for (auto vn : g.virtual_nodes) {
      StrAppend(&out, "    ", DotQuote(StrCat(id, vn)), " [label=", DotQuote(vn),
                ", style=dashed, color=gray, fontcolor=gray];\n");
    }
    for (const auto& e : g.edges) {
      const char* style = e.kind == EdgeKind::kReplaces ? "solid"
                          : e.kind == EdgeKind::kSkips  ? "dashed"
                                                        : "dotted";
      StrAppend(&out, "    ", DotQuote(StrCat(id, c.bundles[e.from].name)), " -> ",
                DotQuote(StrCat(id, e.to)), " [style=", style, ", label=", DotQuote(EdgeKindName(e.kind)),
                ", fontsize=8];\n");
    }
    out += "  }\n";
  }
  out += "}\n";
  return out;
}

std::string GraphMermaid(const Model& m, const ModelPackage& p) {
  std::string out = "graph LR\n";
  std::unordered_map<std::string, int> ids;
  auto id = [&](const std::string& key) {
    auto [it, inserted] = ids.emplace(key, static_cast<int>(ids.size()));
    return StrCat("n", it->second);
  };
  auto label = [](std::string_view s) {
    std::string o;
    for (char c : s) o += c == '"' ? '\'' : c;
    return o;
  };
  for (const ModelChannel& c : p.channels) {
    auto head = ChannelHead(c);
    ChannelGraph g = BuildChannelGraph(m, c);
    StrAppend(&out, "  subgraph ", id("channel/" + c.name), "[\"", label(c.name), "\"]\n");
    for (const auto& b : c.bundles) {
      const Version* v = VersionOf(m, b);
      bool is_head = head.ok() && *head == b.name;
      StrAppend(&out, "    ", id(c.name + "/" + b.name), "[\"", label(b.name),
                v ? StrCat(" ", v->String()) : "", is_head ? " (head)" : "", "\"]\n");
    }
    for (auto vn : g.virtual_nodes) {
      StrAppend(&out, "    ", id(c.name + "/" + std::string(vn)), "[\"", label(vn),
                " (virtual)\"]:::virtual\n");
    }
    for (const auto& e : g.edges) {
      const char* arrow = e.kind == EdgeKind::kReplaces ? "-->" : e.kind == EdgeKind::kSkips ? "-.->" : "==>";
      StrAppend(&out, "    ", id(c.name + "/" + c.bundles[e.from].name), " ", arrow, "|",
                EdgeKindName(e.kind), "| ", id(c.name + "/" + std::string(e.to)), "\n");
    }
    out += "  end\n";
  }
  out += "  classDef virtual stroke-dasharray: 5 5,color:#888\n";
  return out;
}

}  // namespace recon::olm
