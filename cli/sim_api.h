// The simulated API server's CRDs and checks from the command line, shared by
// `recon sim`, `recon sim serve` and `recon agent --cluster sim`:
// `--crds DIR` (repeatable) adds CRDs to the real ones built in;
// `--no-validate` turns schema and built-in checks off (benchmarks).
#ifndef RECON_CLI_SIM_API_H_
#define RECON_CLI_SIM_API_H_

#include "absl/status/statusor.h"
#include "adapters/sim/api.h"
#include "cli/args.h"

namespace recon::cli {

absl::StatusOr<sim::ApiOptions> SimApiOptions(const Args& args);

// The usage lines for the two flags (a literal, to splice into usage texts).
#define RECON_SIM_API_USAGE                                                                        \
  "  --crds DIR          also serve the CRDs in DIR (*.yaml, *.json; repeatable) besides the\n"    \
  "                      real ones built in; writes to them are validated as a real server does\n" \
  "  --no-validate       no schema or built-in validation of writes (benchmarks)\n"

}  // namespace recon::cli

#endif  // RECON_CLI_SIM_API_H_
