// The shadow flags `recon shadow report` and `recon agent --shadow` share:
// --shadow-window and --shadow-manager, and the field managers of the
// operators each domain shadows by default.
#ifndef RECON_CLI_SHADOW_OPTIONS_H_
#define RECON_CLI_SHADOW_OPTIONS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/args.h"
#include "engine/engine.h"
#include "shadow/compare.h"

namespace recon::cli {

// Help lines for both commands.
inline constexpr char kShadowFlagsHelp[] =
    "  --shadow-window D    how long after a prediction the log may show it (event time; default 2m)\n"
    "  --shadow-manager DOMAIN=M1,M2  the field managers (metadata.managedFields[].manager) of the\n"
    "                       operator DOMAIN shadows (repeatable; replaces the default, `DOMAIN=` none).\n"
    "                       Defaults: samples=cluster-samples-operator, olm=olm,catalog, aro=aro,\n"
    "                       disconnected=manager\n";

// The field managers by domain before --shadow-manager.
std::map<std::string, std::vector<std::string>> DefaultShadowManagers();

// --shadow-window and --shadow-manager, for the domains `engine` runs.
// Errors are usage errors (they name the flag).
absl::StatusOr<shadow::Options> ParseShadowOptions(const Args& args, const engine::Engine& engine);

}  // namespace recon::cli

#endif  // RECON_CLI_SHADOW_OPTIONS_H_
