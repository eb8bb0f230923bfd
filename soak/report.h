// The soak's report (soak.h) as `recon soak` prints it: one JSON object, or
// text, leg by leg, then PASSED or FAILED with the failures.
#ifndef RECON_SOAK_REPORT_H_
#define RECON_SOAK_REPORT_H_

#include "engine/json.h"
#include "soak/soak.h"

namespace recon::soak {

engine::Json SoakReportJson(const SoakOptions& o, const SoakReport& r);

// The text report, to stdout.
void PrintSoakReport(const SoakOptions& o, const SoakReport& r);

}  // namespace recon::soak

#endif  // RECON_SOAK_REPORT_H_
