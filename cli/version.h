// `recon --version`: this build's version, git commit and the versions of
// the libraries it was built with.
#ifndef RECON_CLI_VERSION_H_
#define RECON_CLI_VERSION_H_

#include <string>

namespace recon::cli {

// Several lines: "recon VERSION", "commit ...", then one line per library.
std::string VersionText();

}  // namespace recon::cli

#endif  // RECON_CLI_VERSION_H_
