// recon sim / recon agent: placeholders until the simulated cluster lands.
#include <cstdio>

#include "cli/commands.h"

namespace recon::cli {

int RunSim(int argc, char** argv) {
  std::fputs("recon sim: not built yet\n", stderr);
  return 1;
}

}  // namespace recon::cli
