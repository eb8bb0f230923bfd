#include "runtime/run_on.h"

#include <utility>

#include "base/strings.h"

namespace recon::runtime {

RunFn RunOnNewLog(engine::Engine& engine, store::EventStore& store) {
  return [&engine, &store](ClusterAdapter& adapter, const TimeSource& clock, Metrics& metrics,
                           RuntimeOptions options) -> absl::StatusOr<bool> {
    if (store.LastSeq() != 0) {
      return absl::FailedPreconditionError(recon::StrCat("the store already holds ", store.LastSeq(),
                                                         " events; a sim run starts from an empty log"));
    }
    Runtime runtime(adapter, engine, store, clock, metrics, std::move(options));
    if (auto s = runtime.Run(); !s.ok()) return s;
    return runtime.status().converged;
  };
}

}  // namespace recon::runtime
