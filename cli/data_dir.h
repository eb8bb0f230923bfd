// Where the real data the repository ships (datasets/: the samples
// inventory, the OLM catalogs) is found, whatever the current directory:
// $RECON_DATA, else beside the binary (build/recon → datasets/ of its
// checkout; an installed /usr/bin/recon → /usr/share/recon), else the source
// tree the binary was built from.
#ifndef RECON_CLI_DATA_DIR_H_
#define RECON_CLI_DATA_DIR_H_

#include <string>
#include <string_view>

namespace recon::cli {

// The path of `rel` (e.g. "olm/community-derived") in the first of those
// places that has it; the source tree's path when none does (so an error
// names where it was looked for).
std::string DataPath(std::string_view rel);

}  // namespace recon::cli

#endif  // RECON_CLI_DATA_DIR_H_
