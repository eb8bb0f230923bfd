// PATCH bodies as the API server applies them: JSON merge patch (RFC 7386),
// JSON patch (RFC 6902), and strategic merge patch treated as a merge patch
// (the types served here have no list merge keys a client relies on;
// `$patch` directives are not interpreted).
#ifndef RECON_ADAPTERS_SIM_HTTP_PATCH_H_
#define RECON_ADAPTERS_SIM_HTTP_PATCH_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "engine/json.h"

namespace recon::sim {

// `content_type` without parameters. Unimplemented for a patch type not
// served (server-side apply); InvalidArgument for a bad patch.
absl::StatusOr<engine::Json> ApplyPatch(std::string_view content_type, const engine::Json& current,
                                        std::string_view patch);

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_HTTP_PATCH_H_
