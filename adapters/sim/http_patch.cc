#include "adapters/sim/http_patch.h"

#include "base/strings.h"

namespace recon::sim {

absl::StatusOr<engine::Json> ApplyPatch(std::string_view content_type, const engine::Json& current,
                                        std::string_view patch) {
  bool merge = content_type == "application/merge-patch+json" ||
               content_type == "application/strategic-merge-patch+json";
  bool json_patch = content_type == "application/json-patch+json";
  if (!merge && !json_patch) {
    return absl::UnimplementedError(
        recon::StrCat("the body of the request was in an unknown format - accepted media types include: "
                      "application/json-patch+json, application/merge-patch+json, "
                      "application/strategic-merge-patch+json (got \"",
                      content_type, "\")"));
  }
  auto body = engine::ParseJson(patch);
  if (!body.ok())
    return absl::InvalidArgumentError(recon::StrCat("the patch is not JSON: ", Sv(body.status().message())));
  engine::Json out = current;
  if (merge) {
    if (!body->is_object()) return absl::InvalidArgumentError("a merge patch must be a JSON object");
    out.merge_patch(*body);
    return out;
  }
  if (!body->is_array()) return absl::InvalidArgumentError("a JSON patch must be an array of operations");
  // nlohmann reports a failed operation (a test that does not hold, a
  // missing path) by throwing; it stays inside this function.
  try {
    return out.patch(*body);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(recon::StrCat("the JSON patch does not apply: ", e.what()));
  }
}

}  // namespace recon::sim
