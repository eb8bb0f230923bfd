// `recon agent --azure`: the ARM adapter's options from the command line
// (--arm-endpoint, --aad-endpoint, --azure-credentials FILE|env) and the
// reads the aro domain asks for.
#ifndef RECON_CLI_AZURE_OPTIONS_H_
#define RECON_CLI_AZURE_OPTIONS_H_

#include "absl/status/statusor.h"
#include "adapters/azure/adapter.h"
#include "cli/args.h"

namespace recon::cli {

// An error names the credentials file that cannot be read or parsed.
absl::StatusOr<azure::AzureOptions> AzureOptionsFrom(const Args& args);

}  // namespace recon::cli

#endif  // RECON_CLI_AZURE_OPTIONS_H_
