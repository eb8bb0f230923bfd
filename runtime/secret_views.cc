#include "runtime/secret_views.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "base/sha256.h"
#include "base/strings.h"
#include "engine/yaml_json.h"
#include "runtime/redact.h"

namespace recon::runtime {
namespace {

using engine::Json;
using engine::SecretView;

// The decoded bytes of data[key] ("" when absent), or nullopt when they
// cannot be known from this body.
std::optional<std::string> DataBytes(const Json& data, const std::string& key) {
  auto it = data.find(key);
  if (it == data.end()) return std::string();
  if (!it->is_string()) return std::nullopt;
  const std::string& s = it->get_ref<const std::string&>();
  std::string plain;
  if (Redactor::IsRedacted(s) || !absl::Base64Unescape(Av(s), &plain)) return std::nullopt;
  return plain;
}

std::optional<std::string> ConfigHash(const Json& body, std::vector<std::string> keys) {
  static const Json kEmpty = Json::object();
  auto d = body.find("data");
  const Json& data = d != body.end() && d->is_object() ? *d : kEmpty;
  std::sort(keys.begin(), keys.end());
  std::string text;
  for (const std::string& key : keys) {
    auto bytes = DataBytes(data, key);
    if (!bytes) return std::nullopt;
    text += recon::StrCat(key, ": ", *bytes, "\n");
  }
  return recon::Sha256Hex(text);
}

bool PathMatches(const std::vector<std::string>& pattern, const std::vector<std::string>& path) {
  if (pattern.size() != path.size()) return false;
  for (size_t i = 0; i < path.size(); ++i)
    if (pattern[i] != "*" && pattern[i] != path[i]) return false;
  return true;
}

bool InClear(const std::vector<SecretView::Clear>& clear, const std::vector<std::string>& path,
             const Json& v) {
  for (const auto& c : clear) {
    if (!PathMatches(c.path, path)) continue;
    if (c.values.empty()) return true;
    if (v.is_string() &&
        std::find(c.values.begin(), c.values.end(), v.get_ref<const std::string&>()) != c.values.end())
      return true;
  }
  return false;
}

// Every scalar of `v` not in clear becomes its marker; keys stay, nulls
// (which hold nothing) stay.
void HideTree(Json& v, std::vector<std::string>& path, const std::vector<SecretView::Clear>& clear,
              const HideLeaf& hide) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      path.push_back(it.key());
      HideTree(it.value(), path, clear, hide);
      path.pop_back();
    }
  } else if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i) {
      path.push_back(std::to_string(i));
      HideTree(v[i], path, clear, hide);
      path.pop_back();
    }
  } else if (!v.is_null() && !InClear(clear, path, v)) {
    hide(v);
  }
}

std::optional<Json> YamlTree(const Json& body, const SecretView& view, const HideLeaf& hide) {
  if (view.keys.empty()) return std::nullopt;
  auto d = body.find("data");
  if (d == body.end() || !d->is_object()) return std::nullopt;
  auto bytes = DataBytes(*d, view.keys[0]);
  if (!bytes || d->find(view.keys[0]) == d->end()) return std::nullopt;
  auto tree = engine::ParseYaml(*bytes);
  // libyaml's problem texts are fixed descriptions: no byte of the value.
  if (!tree.ok()) return Json{{"reconError", recon::StrCat(view.keys[0], ": ", tree.status().message())}};
  std::vector<std::string> path;
  HideTree(*tree, path, view.clear, hide);
  return *tree;
}

}  // namespace

void ComputeSecretViews(const std::vector<SecretView>& views, std::string_view ns, std::string_view name,
                        Json& body, const HideLeaf& hide) {
  for (const SecretView& v : views) {
    if (v.ns != ns || v.name != name) continue;
    std::optional<std::string> value;
    switch (v.form) {
      case SecretView::Form::kConfigHash:
        value = ConfigHash(body, v.keys);
        break;
      case SecretView::Form::kYamlTree:
        if (auto tree = YamlTree(body, v, hide))
          body[std::string(engine::kSecretViewsField)][v.view] = std::move(*tree);
        break;
    }
    if (value) body[std::string(engine::kSecretViewsField)][v.view] = *value;
  }
}

}  // namespace recon::runtime
