#include "engine/yaml_json.h"

#include <yaml.h>

#include <algorithm>
#include <memory>
#include <regex>
#include <vector>

#include "base/strings.h"

namespace recon::engine {
namespace {

// YAML 1.1 resolution of a plain scalar, as go-yaml v2 does it.
Json Resolve(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  static const char* kTrue[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"};
  static const char* kFalse[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"};
  for (const char* t : kTrue) {
    if (s == t) return true;
  }
  for (const char* f : kFalse) {
    if (s == f) return false;
  }
  static const std::regex kInt("[-+]?(0|[1-9][0-9]*)");
  static const std::regex kFloat("[-+]?([0-9]+\\.[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?");
  if (std::regex_match(s, kInt) && s.size() < 18) return std::stoll(s);
  if (std::regex_match(s, kFloat)) return std::stod(s);
  return s;
}

Json Convert(yaml_document_t* doc, yaml_node_t* node, int depth) {
  if (node == nullptr || depth > 200) return nullptr;
  switch (node->type) {
    case YAML_SCALAR_NODE: {
      std::string v(reinterpret_cast<const char*>(node->data.scalar.value), node->data.scalar.length);
      if (node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) return Resolve(v);
      return v;
    }
    case YAML_SEQUENCE_NODE: {
      Json out = Json::array();
      for (yaml_node_item_t* i = node->data.sequence.items.start; i < node->data.sequence.items.top; ++i) {
        out.push_back(Convert(doc, yaml_document_get_node(doc, *i), depth + 1));
      }
      return out;
    }
    case YAML_MAPPING_NODE: {
      Json out = Json::object();
      for (yaml_node_pair_t* p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; ++p) {
        Json key = Convert(doc, yaml_document_get_node(doc, p->key), depth + 1);
        std::string k = key.is_string() ? key.get<std::string>() : engine::Dump(key);
        out[k] = Convert(doc, yaml_document_get_node(doc, p->value), depth + 1);
      }
      return out;
    }
    default:
      return nullptr;
  }
}

bool NeedsQuotes(const std::string& s) {
  if (s.empty()) return true;
  if (!Resolve(s).is_string()) return true;
  if (std::string_view("-?:,[]{}#&*!|>'\"%@` ").find(s.front()) != std::string_view::npos) return true;
  if (s.back() == ' ' || s.back() == ':') return true;
  if (s.find(": ") != std::string::npos || s.find(" #") != std::string::npos) return true;
  return std::any_of(s.begin(), s.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

std::string Scalar(const Json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return engine::Dump(v);
  std::string s = v.get<std::string>();
  if (!NeedsQuotes(s)) return s;
  bool control = std::any_of(s.begin(), s.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
  if (!control && Resolve(s).is_string() && !s.empty()) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
  }
  return engine::Dump(Json(s));  // JSON string escaping is valid YAML double-quoting
}

bool IsEmptyCollection(const Json& v) { return (v.is_object() || v.is_array()) && v.empty(); }

void EmitNode(const Json& v, int indent, std::string* out);

void EmitMap(const Json& m, int indent, bool first_inline, std::string* out) {
  std::vector<std::string> keys;
  for (auto it = m.begin(); it != m.end(); ++it) keys.push_back(it.key());
  std::sort(keys.begin(), keys.end());
  bool first = true;
  for (const auto& k : keys) {
    if (!(first && first_inline)) out->append(indent, ' ');
    first = false;
    const Json& v = m[k];
    recon::StrAppend(out, Scalar(Json(k)), ":");
    if (v.is_object() && !v.empty()) {
      out->append("\n");
      EmitMap(v, indent + 2, false, out);
    } else if (v.is_array() && !v.empty()) {
      out->append("\n");
      EmitNode(v, indent, out);  // go-yaml v2 does not indent a sequence under its key
    } else {
      recon::StrAppend(out, " ", IsEmptyCollection(v) ? (v.is_object() ? "{}" : "[]") : Scalar(v), "\n");
    }
  }
}

void EmitNode(const Json& v, int indent, std::string* out) {
  if (v.is_object() && !v.empty()) return EmitMap(v, indent, false, out);
  if (v.is_array() && !v.empty()) {
    for (const auto& item : v) {
      out->append(indent, ' ');
      out->append("- ");
      if (item.is_object() && !item.empty()) {
        EmitMap(item, indent + 2, true, out);
      } else if (item.is_array() && !item.empty()) {
        out->append("\n");
        EmitNode(item, indent + 2, out);
      } else {
        recon::StrAppend(out, IsEmptyCollection(item) ? (item.is_object() ? "{}" : "[]") : Scalar(item),
                         "\n");
      }
    }
    return;
  }
  recon::StrAppend(out, IsEmptyCollection(v) ? (v.is_object() ? "{}" : "[]") : Scalar(v), "\n");
}

}  // namespace

absl::StatusOr<Json> ParseYaml(std::string_view text) {
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser)) return absl::InternalError("yaml: cannot initialize the parser");
  std::unique_ptr<yaml_parser_t, void (*)(yaml_parser_t*)> parser_guard(&parser, yaml_parser_delete);
  yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()), text.size());
  yaml_document_t doc;
  if (!yaml_parser_load(&parser, &doc)) {
    return absl::InvalidArgumentError(recon::StrCat("yaml: line ", parser.problem_mark.line + 1, ": ",
                                                    parser.problem ? parser.problem : "parse error"));
  }
  std::unique_ptr<yaml_document_t, void (*)(yaml_document_t*)> doc_guard(&doc, yaml_document_delete);
  return Convert(&doc, yaml_document_get_root_node(&doc), 0);
}

std::string EmitYaml(const Json& value) {
  std::string out;
  EmitNode(value, 0, &out);
  return out;
}

}  // namespace recon::engine
