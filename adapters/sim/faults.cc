#include "adapters/sim/faults.h"

#include "base/strings.h"

namespace recon::sim {

int FaultInjector::WriteFault() {
  if (faults_.write_errors.empty()) return 0;
  double u = rng_.Uniform(), acc = 0;
  for (const auto& w : faults_.write_errors) {
    acc += w.fraction;
    if (u < acc) {
      ++failed_writes_;
      return w.status;
    }
  }
  return 0;
}

FaultInjector::Watch FaultInjector::OnWatch() {
  if (faults_.drop_watch <= 0 && faults_.delay_watch <= 0) return Watch::kDeliver;
  double u = rng_.Uniform();
  if (u < faults_.drop_watch) {
    ++dropped_;
    return Watch::kDrop;
  }
  if (u < faults_.drop_watch + faults_.delay_watch) {
    ++delayed_;
    return Watch::kDelay;
  }
  return Watch::kDeliver;
}

ApiResult InjectedFailure(int status, const ObjectKey& key) {
  switch (status) {
    case 409:
      return Failure(
          409, "Conflict",
          recon::StrCat("Operation cannot be fulfilled on ", ResourceName(key), " \"", key.name,
                        "\": the object has been modified; please apply your changes to the latest "
                        "version and try again"));
    case 429:
      return Failure(429, "TooManyRequests",
                     "the server has received too many requests and has asked us to try again later");
    default:
      return Failure(status, "InternalError",
                     "an error on the server (\"injected fault\") has prevented the request from succeeding");
  }
}

}  // namespace recon::sim
