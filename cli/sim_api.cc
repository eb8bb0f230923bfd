#include "cli/sim_api.h"

#include <memory>

#include "base/strings.h"

namespace recon::cli {

absl::StatusOr<sim::ApiOptions> SimApiOptions(const Args& args) {
  sim::ApiOptions opts = sim::ApiOptions::Default();
  opts.validate = !args.Has("no-validate");
  std::vector<std::string> dirs = args.GetAll("crds");
  if (dirs.empty()) return opts;
  crd::Registry registry = opts.crds != nullptr ? *opts.crds : crd::Registry();
  for (const auto& dir : dirs) {
    if (auto s = registry.AddDir(dir); !s.ok())
      return absl::InvalidArgumentError(recon::StrCat("--crds ", dir, ": ", Sv(s.message())));
  }
  opts.crds = std::make_shared<const crd::Registry>(std::move(registry));
  return opts;
}

}  // namespace recon::cli
