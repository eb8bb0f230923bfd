#include "domains/olm/catalog/bundle_objects.h"

#include <string>

#include "absl/strings/escaping.h"
#include "base/strings.h"
#include "domains/olm/catalog/loader.h"

namespace recon::olm {
namespace {

using engine::Json;

// The base64 `data` of an olm.bundle.object property.
absl::StatusOr<std::string> ObjectData(const DeclarativeConfig& cfg, const Property& p) {
  if (p.is_span) {
    if (p.dropped) return absl::FailedPreconditionError("bundle object payloads were dropped at load");
    auto node = ParseSpan(cfg, p.span);
    if (!node.ok()) return node.status();
    const Node* data = node->Get("data");
    if (data == nullptr) return absl::InvalidArgumentError("olm.bundle.object without data");
    return data->text;
  }
  auto j = engine::ParseJson(p.value);
  if (!j.ok()) return j.status();
  const Json& data = engine::Path(*j, {"data"});
  if (!data.is_string()) return absl::InvalidArgumentError("olm.bundle.object without data");
  return data.get<std::string>();
}

}  // namespace

std::vector<absl::StatusOr<Json>> DecodeBundleObjects(const DeclarativeConfig& cfg, const Bundle& bundle) {
  std::vector<absl::StatusOr<Json>> out;
  for (const auto& p : bundle.properties) {
    if (p.type != "olm.bundle.object") continue;
    auto data = ObjectData(cfg, p);
    std::string text;
    if (data.ok() && !absl::Base64Unescape(*data, &text)) data = absl::InvalidArgumentError("data is not base64");
    if (!data.ok()) {
      out.push_back(data.status());
      continue;
    }
    auto obj = engine::ParseJson(text);
    if (!obj.ok()) {
      out.push_back(absl::InvalidArgumentError(StrCat("bundle object is not JSON: ", Sv(obj.status().message()))));
      continue;
    }
    out.push_back(*std::move(obj));
  }
  return out;
}

}  // namespace recon::olm
