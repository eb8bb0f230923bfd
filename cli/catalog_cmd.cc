// recon catalog: placeholder until the OLM catalog work lands.
#include <cstdio>

#include "cli/commands.h"

namespace recon::cli {

int RunCatalog(int argc, char** argv) {
  std::fputs("recon catalog: not built yet\n", stderr);
  return 1;
}

}  // namespace recon::cli
