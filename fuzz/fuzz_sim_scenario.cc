// Fuzzes the simulator's scenario parser (adapters/sim/scenario.h): scenario
// files are user input to `recon sim` and `recon agent --cluster sim`.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "adapters/sim/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  (void)recon::sim::ParseScenario(input, "fuzz", "");
  return 0;
}
