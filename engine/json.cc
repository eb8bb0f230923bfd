#include "engine/json.h"

#include <simdjson.h>

#include "base/strings.h"

namespace recon::engine {
namespace {

const Json& NullJson() {
  static const Json* null = new Json();
  return *null;
}

Json Convert(simdjson::dom::element e) {
  switch (e.type()) {
    case simdjson::dom::element_type::OBJECT: {
      Json out = Json::object();
      for (auto [k, v] : simdjson::dom::object(e)) out[std::string(k)] = Convert(v);
      return out;
    }
    case simdjson::dom::element_type::ARRAY: {
      Json out = Json::array();
      for (auto v : simdjson::dom::array(e)) out.push_back(Convert(v));
      return out;
    }
    case simdjson::dom::element_type::STRING:
      return Json(std::string(std::string_view(e)));
    case simdjson::dom::element_type::INT64:
      return Json(int64_t(e));
    case simdjson::dom::element_type::UINT64:
      return Json(uint64_t(e));
    case simdjson::dom::element_type::DOUBLE:
      return Json(double(e));
    case simdjson::dom::element_type::BOOL:
      return Json(bool(e));
    case simdjson::dom::element_type::NULL_VALUE:
      return Json();
  }
  return Json();
}

// One parser per thread for every helper: each keeps buffers as large as
// the largest document it parsed.
simdjson::dom::parser& Parser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}

}  // namespace

absl::StatusOr<Json> ParseJson(std::string_view text) {
  simdjson::dom::parser& parser = Parser();
  simdjson::dom::element root;
  // simdjson memcpy()s from data() even when empty; a null pointer there is
  // UB (an empty capnp Data field from a snapshot gives one).
  if (text.data() == nullptr) text = std::string_view("", 0);
  auto err = parser.parse(text.data(), text.size(), true).get(root);
  if (err) return absl::InvalidArgumentError(recon::StrCat("invalid JSON: ", simdjson::error_message(err)));
  return Convert(root);
}

std::optional<std::string> PeekString(std::string_view text, std::initializer_list<std::string_view> keys) {
  simdjson::dom::parser& parser = Parser();
  if (text.data() == nullptr) return std::nullopt;
  simdjson::dom::element e;
  if (parser.parse(text.data(), text.size(), true).get(e)) return std::nullopt;
  for (std::string_view k : keys) {
    simdjson::dom::object o;
    if (e.get_object().get(o) || o.at_key(k).get(e)) return std::nullopt;
  }
  std::string_view v;
  if (e.get_string().get(v)) return std::nullopt;
  return std::string(v);
}

bool IsJsonObject(std::string_view text) {
  simdjson::dom::parser& parser = Parser();
  if (text.data() == nullptr) return false;
  simdjson::dom::element e;
  return !parser.parse(text.data(), text.size(), true).get(e) && e.is_object();
}

std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

const Json& Path(const Json& j, std::initializer_list<std::string_view> keys) {
  const Json* cur = &j;
  for (auto k : keys) {
    if (!cur->is_object()) return NullJson();
    auto it = cur->find(k);
    if (it == cur->end()) return NullJson();
    cur = &*it;
  }
  return *cur;
}

std::string GetString(const Json& j, std::initializer_list<std::string_view> keys, std::string_view fallback) {
  const Json& v = Path(j, keys);
  return v.is_string() ? v.get<std::string>() : std::string(fallback);
}

}  // namespace recon::engine
