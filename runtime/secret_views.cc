#include "runtime/secret_views.h"

#include <algorithm>
#include <optional>
#include <string>

#include "absl/strings/escaping.h"
#include "base/sha256.h"
#include "base/strings.h"
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

}  // namespace

void ComputeSecretViews(const std::vector<SecretView>& views, std::string_view ns, std::string_view name,
                        Json& body) {
  for (const SecretView& v : views) {
    if (v.ns != ns || v.name != name) continue;
    std::optional<std::string> value;
    switch (v.form) {
      case SecretView::Form::kConfigHash:
        value = ConfigHash(body, v.keys);
        break;
    }
    if (value) body[std::string(engine::kSecretViewsField)][v.view] = *value;
  }
}

}  // namespace recon::runtime
