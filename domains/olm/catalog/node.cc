#include "domains/olm/catalog/node.h"

namespace recon::olm {
namespace {

bool IsJsonNumber(std::string_view s) {
  size_t i = 0, n = s.size();
  if (i < n && s[i] == '-') ++i;
  if (i >= n) return false;
  if (s[i] == '0') {
    ++i;
  } else if (s[i] >= '1' && s[i] <= '9') {
    while (i < n && s[i] >= '0' && s[i] <= '9') ++i;
  } else {
    return false;
  }
  if (i < n && s[i] == '.') {
    ++i;
    size_t d = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == d) return false;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    size_t d = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == d) return false;
  }
  return i == n;
}

}  // namespace

bool Node::IsNull() const {
  return kind == Kind::kScalar && style == Style::kPlain &&
         (text.empty() || text == "null" || text == "~" || text == "Null" || text == "NULL");
}

const Node* Node::Get(std::string_view key) const {
  for (const auto& [k, v] : items) {
    if (k == key) return &v;
  }
  return nullptr;
}

void AppendJsonString(std::string* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out->append(s.data() + start, i - start);
    start = i + 1;
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        out->append("\\u00");
        out->push_back(kHex[c >> 4]);
        out->push_back(kHex[c & 15]);
    }
  }
  out->append(s.data() + start, s.size() - start);
  out->push_back('"');
}

void AppendJson(std::string* out, const Node& n) {
  switch (n.kind) {
    case Node::Kind::kScalar:
      if (n.style == Node::Style::kPlain) {
        if (n.IsNull()) {
          out->append("null");
          return;
        }
        if (n.text == "true" || n.text == "false" || IsJsonNumber(n.text)) {
          out->append(n.text);
          return;
        }
      }
      AppendJsonString(out, n.text);
      return;
    case Node::Kind::kMap: {
      out->push_back('{');
      bool first = true;
      for (const auto& [k, v] : n.items) {
        if (!first) out->push_back(',');
        first = false;
        AppendJsonString(out, k);
        out->push_back(':');
        AppendJson(out, v);
      }
      out->push_back('}');
      return;
    }
    case Node::Kind::kSeq: {
      out->push_back('[');
      for (size_t i = 0; i < n.elems.size(); ++i) {
        if (i) out->push_back(',');
        AppendJson(out, n.elems[i]);
      }
      out->push_back(']');
      return;
    }
    case Node::Kind::kSpan:
      out->append("null");
      return;
  }
}

}  // namespace recon::olm
