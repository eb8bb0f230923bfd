#include "domains/olm/catalog/yaml_doc.h"

#include <yaml.h>

#include <cstring>
#include <map>
#include <string>

#include "base/strings.h"

namespace recon::olm {
namespace {

struct Line {
  size_t start = 0, end = 0;  // end excludes "\n" (and a "\r" before it)
  int indent = 0;
  bool skip = false;  // blank or comment-only
};

std::vector<Line> SplitLines(std::string_view text) {
  std::vector<Line> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    const void* nl = std::memchr(text.data() + pos, '\n', text.size() - pos);
    size_t end = nl ? static_cast<const char*>(nl) - text.data() : text.size();
    Line l;
    l.start = pos;
    l.end = (end > pos && text[end - 1] == '\r') ? end - 1 : end;
    size_t i = pos;
    while (i < l.end && text[i] == ' ') ++i;
    l.indent = static_cast<int>(i - pos);
    l.skip = i == l.end || text[i] == '#';
    lines.push_back(l);
    pos = end + 1;
  }
  return lines;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A simple `key: rest` at `col`; false if the line does not look like one.
bool SplitKey(std::string_view line, size_t col, std::string_view* key, std::string_view* rest) {
  if (col >= line.size()) return false;
  size_t i = col;
  while (i < line.size() && ((line[i] >= 'a' && line[i] <= 'z') || (line[i] >= 'A' && line[i] <= 'Z'))) ++i;
  if (i == col || i >= line.size() || line[i] != ':') return false;
  if (i + 1 < line.size() && line[i + 1] != ' ') return false;
  *key = line.substr(col, i - col);
  *rest = Trim(line.substr(i + 1));
  return true;
}

bool IsPayloadType(std::string_view v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
    v = v.substr(1, v.size() - 2);
  }
  return v == "olm.bundle.object" || v == "olm.csv.metadata";
}

struct Cut {
  size_t ordinal;       // index of the property item
  size_t keep_end;      // bytes [.., keep_end) of the value line are kept
  size_t region_start;  // the excised value text
  size_t region_end;
};

// Finds block-style payload values under a top-level `properties:` sequence.
// Anything unusual yields no cut for that item: the full parse is always
// correct, the cut is only a shortcut.
std::vector<Cut> FindPayloadCuts(std::string_view doc) {
  std::vector<Cut> cuts;
  // Cheap pre-check: most documents (channels, packages) have no payload.
  if (doc.find("olm.bundle.object") == std::string_view::npos &&
      doc.find("olm.csv.metadata") == std::string_view::npos) {
    return cuts;
  }
  auto lines = SplitLines(doc);
  auto text = [&](const Line& l) { return doc.substr(l.start, l.end - l.start); };
  size_t n = lines.size(), j = 0;
  for (; j < n; ++j) {
    if (lines[j].indent == 0 && Trim(text(lines[j])) == "properties:") break;
  }
  if (j == n) return cuts;
  ++j;
  while (j < n && lines[j].skip) ++j;
  if (j == n) return cuts;
  const int d = lines[j].indent;
  const size_t c = static_cast<size_t>(d) + 2;
  size_t ordinal = 0;
  while (j < n) {
    if (lines[j].skip) {
      ++j;
      continue;
    }
    std::string_view first = text(lines[j]);
    if (lines[j].indent != d || first[d] != '-') break;
    size_t end = j + 1;
    while (end < n && (lines[end].skip || lines[end].indent > d)) ++end;
    if (first.size() > c && first[d + 1] == ' ' && first[c] != ' ') {
      bool payload = false;
      size_t value_line = SIZE_MAX;
      for (size_t k = j; k < end; ++k) {
        if (k != j && (lines[k].skip || lines[k].indent != static_cast<int>(c))) continue;
        std::string_view key, rest;
        if (!SplitKey(text(lines[k]), c, &key, &rest)) continue;
        if (key == "type") payload = IsPayloadType(rest);
        if (key == "value" && (rest.empty() || rest[0] == '#')) value_line = k;
      }
      if (payload && value_line != SIZE_MAX) {
        size_t r = value_line + 1;
        while (r < end && (lines[r].skip || lines[r].indent > static_cast<int>(c))) ++r;
        // Trailing blank/comment lines stay outside the region.
        size_t last = r;
        while (last > value_line + 1 && lines[last - 1].skip) --last;
        if (last > value_line + 1) {
          cuts.push_back({ordinal, lines[value_line].end, lines[value_line + 1].start,
                          last < n ? lines[last].start : doc.size()});
        }
      }
    }
    ++ordinal;
    j = end;
  }
  return cuts;
}

class Builder {
 public:
  explicit Builder(uint32_t line_base) : line_base_(line_base) {}

  absl::StatusOr<Node> Parse(std::string_view text) {
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    absl::Status st = Run(&p);
    yaml_parser_delete(&p);
    if (!st.ok()) return st;
    if (!have_root_) {
      Node null;
      null.style = Node::Style::kPlain;
      return null;
    }
    return std::move(root_);
  }

 private:
  struct Frame {
    Node node;
    std::string key;
    bool have_key = false;
    std::string anchor;
  };

  absl::Status Error(const yaml_parser_t& p) {
    std::string msg = StrCat("yaml: line ", p.problem_mark.line + line_base_, ": ");
    if (p.context) StrAppend(&msg, p.context, " ");
    StrAppend(&msg, p.problem ? p.problem : "syntax error");
    return absl::InvalidArgumentError(msg);
  }

  absl::Status Add(Node node, const std::string& anchor) {
    if (!anchor.empty()) anchors_[anchor] = node;
    if (stack_.empty()) {
      if (have_root_) return absl::InvalidArgumentError("yaml: more than one document in a document slice");
      root_ = std::move(node);
      have_root_ = true;
      return absl::OkStatus();
    }
    Frame& top = stack_.back();
    if (top.node.kind == Node::Kind::kSeq) {
      top.node.elems.push_back(std::move(node));
    } else if (!top.have_key) {
      if (node.kind != Node::Kind::kScalar)
        return absl::InvalidArgumentError("yaml: mapping key is not a scalar");
      top.key = std::move(node.text);
      top.have_key = true;
    } else {
      top.node.items.emplace_back(std::move(top.key), std::move(node));
      top.have_key = false;
    }
    return absl::OkStatus();
  }

  static std::string Anchor(const yaml_char_t* a) { return a ? reinterpret_cast<const char*>(a) : ""; }

  absl::Status Run(yaml_parser_t* p) {
    for (;;) {
      yaml_event_t ev;
      if (!yaml_parser_parse(p, &ev)) return Error(*p);
      absl::Status st;
      bool done = false;
      switch (ev.type) {
        case YAML_STREAM_END_EVENT:
          done = true;
          break;
        case YAML_MAPPING_START_EVENT:
        case YAML_SEQUENCE_START_EVENT: {
          Frame f;
          f.node.kind = ev.type == YAML_MAPPING_START_EVENT ? Node::Kind::kMap : Node::Kind::kSeq;
          f.anchor = ev.type == YAML_MAPPING_START_EVENT ? Anchor(ev.data.mapping_start.anchor)
                                                         : Anchor(ev.data.sequence_start.anchor);
          stack_.push_back(std::move(f));
          break;
        }
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT: {
          Frame f = std::move(stack_.back());
          stack_.pop_back();
          st = Add(std::move(f.node), f.anchor);
          break;
        }
        case YAML_SCALAR_EVENT: {
          Node n;
          n.text.assign(reinterpret_cast<const char*>(ev.data.scalar.value), ev.data.scalar.length);
          bool tagged_str =
              ev.data.scalar.tag &&
              std::string_view(reinterpret_cast<const char*>(ev.data.scalar.tag)) == YAML_STR_TAG;
          n.style = (ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !tagged_str) ? Node::Style::kPlain
                                                                                     : Node::Style::kQuoted;
          st = Add(std::move(n), Anchor(ev.data.scalar.anchor));
          break;
        }
        case YAML_ALIAS_EVENT: {
          auto it = anchors_.find(Anchor(ev.data.alias.anchor));
          if (it == anchors_.end()) {
            st = absl::InvalidArgumentError(
                StrCat("yaml: unknown anchor '", Anchor(ev.data.alias.anchor), "'"));
          } else {
            st = Add(it->second, "");
          }
          break;
        }
        default:
          break;
      }
      yaml_event_delete(&ev);
      if (!st.ok()) return st;
      if (done) return absl::OkStatus();
    }
  }

  uint32_t line_base_;
  std::vector<Frame> stack_;
  Node root_;
  bool have_root_ = false;
  std::map<std::string, Node> anchors_;
};

}  // namespace

absl::StatusOr<std::vector<DocSlice>> SplitYamlDocuments(std::string_view file) {
  std::vector<DocSlice> docs;
  size_t pos = 0, doc_start = 0;
  uint32_t line = 1, doc_line = 1;
  while (pos < file.size()) {
    const void* nl = std::memchr(file.data() + pos, '\n', file.size() - pos);
    size_t end = nl ? static_cast<const char*>(nl) - file.data() : file.size();
    std::string_view l = file.substr(pos, end - pos);
    if (l.substr(0, 3) == "---") {
      std::string_view rest = Trim(l.substr(3));
      while (!rest.empty() && rest.back() == '\r') rest.remove_suffix(1);
      if (!rest.empty() && rest[0] != '#') {
        return absl::InvalidArgumentError(StrCat("line ", line, ": invalid Yaml document separator: ", rest));
      }
      if (pos > doc_start) docs.push_back({doc_start, pos - doc_start, doc_line});
      doc_start = end + 1;
      doc_line = line + 1;
    }
    pos = end + 1;
    ++line;
  }
  if (doc_start < file.size()) docs.push_back({doc_start, file.size() - doc_start, doc_line});
  return docs;
}

absl::StatusOr<Node> ParseYamlText(std::string_view text) { return Builder(1).Parse(text); }

absl::StatusOr<Node> ParseYamlDocument(std::string_view file, const DocSlice& doc, uint32_t file_index,
                                       bool excise_payloads) {
  std::string_view text = file.substr(doc.offset, doc.length);
  std::vector<Cut> cuts;
  if (excise_payloads) cuts = FindPayloadCuts(text);
  if (cuts.empty()) return Builder(doc.line).Parse(text);

  std::string skeleton;
  skeleton.reserve(text.size() / 4);
  size_t prev = 0;
  for (const Cut& c : cuts) {
    skeleton.append(text.data() + prev, c.keep_end - prev);
    skeleton.append(" null\n");
    prev = c.region_end;
  }
  skeleton.append(text.data() + prev, text.size() - prev);
  auto tree = Builder(doc.line).Parse(skeleton);
  Node* props = nullptr;
  if (tree.ok() && tree->kind == Node::Kind::kMap) {
    for (auto& [k, v] : tree->items) {
      if (k == "properties" && v.kind == Node::Kind::kSeq) props = &v;
    }
  }
  bool placed = props != nullptr;
  for (const Cut& c : cuts) {
    if (!placed || c.ordinal >= props->elems.size() || props->elems[c.ordinal].kind != Node::Kind::kMap) {
      placed = false;
      break;
    }
    Node* value = nullptr;
    for (auto& [k, v] : props->elems[c.ordinal].items) {
      if (k == "value") value = &v;
    }
    if (!value) {
      placed = false;
      break;
    }
    value->kind = Node::Kind::kSpan;
    value->span = {file_index, static_cast<uint32_t>(doc.offset + c.region_start),
                   static_cast<uint32_t>(c.region_end - c.region_start), true};
  }
  // A failed or surprising shortcut: parse the real text (exact errors and lines).
  if (!placed) return Builder(doc.line).Parse(text);
  return tree;
}

}  // namespace recon::olm
