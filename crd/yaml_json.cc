#include "crd/yaml_json.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <string>

#include "base/strings.h"

namespace recon::crd {
namespace {

using engine::Json;

// A plain scalar's value under the YAML 1.2 core schema.
Json PlainScalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  std::string_view d = s;
  if (!d.empty() && d.front() == '+') d.remove_prefix(1);
  int64_t i = 0;
  auto r = std::from_chars(d.data(), d.data() + d.size(), i);
  if (r.ec == std::errc() && r.ptr == d.data() + d.size() && !d.empty()) return i;
  bool numeric = !d.empty() && (std::isdigit(static_cast<unsigned char>(d.front())) || d.front() == '-' ||
                                d.front() == '.');
  if (numeric) {
    double x = 0;
    auto f = std::from_chars(d.data(), d.data() + d.size(), x);
    if (f.ec == std::errc() && f.ptr == d.data() + d.size()) return x;
  }
  return s;
}

Json Convert(const YAML::Node& n, int depth) {
  if (depth > 200) throw YAML::Exception(YAML::Mark::null_mark(), "nesting too deep");
  switch (n.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      // "!" is the tag of a quoted (non-plain) scalar.
      if (n.Tag() == "!" || n.Tag() == "tag:yaml.org,2002:str") return n.Scalar();
      return PlainScalar(n.Scalar());
    case YAML::NodeType::Sequence: {
      Json out = Json::array();
      for (const auto& item : n) out.push_back(Convert(item, depth + 1));
      return out;
    }
    case YAML::NodeType::Map: {
      Json out = Json::object();
      for (const auto& kv : n) out[kv.first.as<std::string>()] = Convert(kv.second, depth + 1);
      return out;
    }
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<std::vector<Json>> YamlDocumentsToJson(std::string_view text, std::string_view source) {
  // yaml-cpp throws; nothing escapes this function.
  try {
    std::vector<Json> out;
    for (const YAML::Node& doc : YAML::LoadAll(std::string(text))) {
      Json j = Convert(doc, 0);
      if (!j.is_null()) out.push_back(std::move(j));
    }
    return out;
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(StrCat(source, ": ", e.what()));
  }
}

}  // namespace recon::crd
