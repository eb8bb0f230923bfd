#include "domains/olm/catalog/json_doc.h"

#include <simdjson.h>

#include <algorithm>

#include "base/strings.h"

namespace recon::olm {
namespace {

namespace od = simdjson::ondemand;

absl::Status JsonError(simdjson::error_code e, std::string_view where) {
  return absl::InvalidArgumentError(
      StrCat("json: ", simdjson::error_message(e), where.empty() ? "" : " in ", where));
}

std::string_view TrimToken(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

template <typename V>
absl::Status Walk(V& v, Node* out);

template <typename V>
absl::Status WalkScalarOrContainer(V& v, Node* out) {
  od::json_type t;
  if (auto e = v.type().get(t)) return JsonError(e, "");
  out->from_json = true;
  switch (t) {
    case od::json_type::object: {
      out->kind = Node::Kind::kMap;
      od::object o;
      if (auto e = v.get_object().get(o)) return JsonError(e, "");
      for (auto field : o) {
        std::string_view key;
        if (auto e = field.unescaped_key().get(key)) return JsonError(e, "");
        Node child;
        od::value cv;
        if (auto e = field.value().get(cv)) return JsonError(e, key);
        if (auto st = Walk(cv, &child); !st.ok()) return st;
        out->items.emplace_back(std::string(key), std::move(child));
      }
      return absl::OkStatus();
    }
    case od::json_type::array: {
      out->kind = Node::Kind::kSeq;
      od::array a;
      if (auto e = v.get_array().get(a)) return JsonError(e, "");
      for (auto el : a) {
        od::value ev;
        if (auto e = el.get(ev)) return JsonError(e, "");
        Node child;
        if (auto st = Walk(ev, &child); !st.ok()) return st;
        out->elems.push_back(std::move(child));
      }
      return absl::OkStatus();
    }
    case od::json_type::string: {
      std::string_view s;
      if (auto e = v.get_string().get(s)) return JsonError(e, "");
      out->text.assign(s);
      out->style = Node::Style::kQuoted;
      return absl::OkStatus();
    }
    default: {
      // Numbers, booleans, null: the token as written, validated by type.
      if (t == od::json_type::boolean) {
        bool b;
        if (auto e = v.get_bool().get(b)) return JsonError(e, "");
        out->text = b ? "true" : "false";
      } else if (t == od::json_type::null) {
        out->text = "null";
        bool is_null = false;
        if (auto e = v.is_null().get(is_null); e || !is_null)
          return JsonError(simdjson::INCORRECT_TYPE, "null");
      } else {
        out->text.assign(TrimToken(v.raw_json_token()));
        double d;
        if (auto e = v.get_double().get(d)) return JsonError(e, out->text);
      }
      out->style = Node::Style::kPlain;
      return absl::OkStatus();
    }
  }
}

template <typename V>
absl::Status Walk(V& v, Node* out) {
  return WalkScalarOrContainer(v, out);
}

bool IsPayloadType(std::string_view t) { return t == "olm.bundle.object" || t == "olm.csv.metadata"; }

bool FoldEq(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// properties[]: each {type, value}; a payload value becomes a span.
absl::Status WalkProperties(od::value& v, const std::string& buf, uint32_t file_index, Node* out) {
  od::json_type t;
  if (auto e = v.type().get(t)) return JsonError(e, "properties");
  if (t != od::json_type::array) return Walk(v, out);
  out->kind = Node::Kind::kSeq;
  out->from_json = true;
  od::array a;
  if (auto e = v.get_array().get(a)) return JsonError(e, "properties");
  for (auto el : a) {
    od::value ev;
    if (auto e = el.get(ev)) return JsonError(e, "properties");
    Node prop;
    od::json_type et;
    if (auto e = ev.type().get(et)) return JsonError(e, "properties");
    if (et != od::json_type::object) {
      if (auto st = Walk(ev, &prop); !st.ok()) return st;
      out->elems.push_back(std::move(prop));
      continue;
    }
    prop.kind = Node::Kind::kMap;
    prop.from_json = true;
    od::object o;
    if (auto e = ev.get_object().get(o)) return JsonError(e, "properties");
    bool payload = false;
    for (auto field : o) {
      std::string_view key;
      if (auto e = field.unescaped_key().get(key)) return JsonError(e, "properties");
      od::value fv;
      if (auto e = field.value().get(fv)) return JsonError(e, key);
      Node child;
      od::json_type ft;
      if (auto e = fv.type().get(ft)) return JsonError(e, key);
      if (payload && FoldEq(key, "value") && ft == od::json_type::object) {
        od::object po;
        std::string_view raw;
        if (auto e = fv.get_object().get(po)) return JsonError(e, key);
        if (auto e = po.raw_json().get(raw)) return JsonError(e, key);
        child.kind = Node::Kind::kSpan;
        child.span = {file_index, static_cast<uint32_t>(raw.data() - buf.data()),
                      static_cast<uint32_t>(raw.size()), false};
      } else {
        if (auto st = Walk(fv, &child); !st.ok()) return st;
        if (FoldEq(key, "type") && child.kind == Node::Kind::kScalar) payload = IsPayloadType(child.text);
      }
      prop.items.emplace_back(std::string(key), std::move(child));
    }
    out->elems.push_back(std::move(prop));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ParseWindow(od::parser& parser, const std::string& buf, uint32_t file_index,
                         bool excise_payloads, size_t batch,
                         const std::function<absl::Status(Node&&, uint32_t index)>& fn);

absl::Status ParseJsonStream(const std::string& buf, uint32_t file_index, bool excise_payloads,
                             const std::function<absl::Status(Node&&, uint32_t index)>& fn) {
  od::parser parser;
  // Documents are small: a 1 MiB window keeps simdjson's index small; a
  // bigger document retries with the whole file as the window.
  size_t batch = std::min<size_t>(buf.size() + 64, 1 << 20);
  for (;;) {
    absl::Status st = ParseWindow(parser, buf, file_index, excise_payloads, batch, fn);
    if (st.code() != absl::StatusCode::kResourceExhausted || batch > buf.size()) return st;
    batch = buf.size() + 64;
  }
}

absl::Status ParseWindow(od::parser& parser, const std::string& buf, uint32_t file_index,
                         bool excise_payloads, size_t batch,
                         const std::function<absl::Status(Node&&, uint32_t index)>& fn) {
  od::document_stream stream;
  if (auto e = parser.iterate_many(buf.data(), buf.size(), batch).get(stream)) return JsonError(e, "");
  size_t index = 0;
  for (auto it = stream.begin(); it != stream.end(); ++it, ++index) {
    auto doc_result = *it;
    od::document_reference doc;
    if (auto e = std::move(doc_result).get(doc)) {
      if (e == simdjson::CAPACITY) return absl::ResourceExhaustedError("document larger than the window");
      return JsonError(e, StrCat("document ", index));
    }
    od::json_type t;
    if (auto e = doc.type().get(t)) return JsonError(e, StrCat("document ", index));
    Node node;
    if (t != od::json_type::object) {
      return absl::InvalidArgumentError(StrCat("document ", index, " is not a JSON object"));
    }
    node.kind = Node::Kind::kMap;
    node.from_json = true;
    od::object o;
    if (auto e = doc.get_object().get(o)) return JsonError(e, StrCat("document ", index));
    for (auto field : o) {
      std::string_view key;
      if (auto e = field.unescaped_key().get(key)) return JsonError(e, StrCat("document ", index));
      od::value fv;
      if (auto e = field.value().get(fv)) return JsonError(e, key);
      Node child;
      absl::Status st = (excise_payloads && FoldEq(key, "properties"))
                            ? WalkProperties(fv, buf, file_index, &child)
                            : Walk(fv, &child);
      if (!st.ok()) return absl::InvalidArgumentError(StrCat("document ", index, ": ", Sv(st.message())));
      node.items.emplace_back(std::string(key), std::move(child));
    }
    if (auto st = fn(std::move(node), static_cast<uint32_t>(index)); !st.ok()) return st;
  }
  if (stream.truncated_bytes() > 0) {
    return absl::InvalidArgumentError(
        StrCat("json: ", stream.truncated_bytes(), " trailing bytes are not a complete document"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Node> ParseJsonText(std::string_view text) {
  simdjson::padded_string padded(text);
  od::parser parser;
  od::document doc;
  if (auto e = parser.iterate(padded).get(doc)) return JsonError(e, "");
  od::value v;
  Node node;
  od::json_type t;
  if (auto e = doc.type().get(t)) return JsonError(e, "");
  if (t == od::json_type::object || t == od::json_type::array) {
    if (auto e = doc.get_value().get(v)) return JsonError(e, "");
    if (auto st = Walk(v, &node); !st.ok()) return st;
  } else {
    // Scalar documents cannot become od::value; the model never needs them.
    std::string_view raw;
    if (auto e = doc.raw_json_token().get(raw)) return JsonError(e, "");
    node.text.assign(TrimToken(raw));
    node.style = Node::Style::kPlain;
  }
  return node;
}

}  // namespace recon::olm
