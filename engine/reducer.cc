#include "engine/reducer.h"

#include "base/strings.h"

namespace recon::engine {

absl::Status Reducer::SetOption(std::string_view key, std::string_view value) {
  std::string known;
  for (const auto& o : Describe().options)
    recon::StrAppend(&known, known.empty() ? "" : ", ", Domain(), ".", o.key);
  return absl::InvalidArgumentError(recon::StrCat(
      "unknown option ", Domain(), ".", key,
      known.empty() ? std::string(" (this domain has none)") : recon::StrCat(" (known: ", known, ")")));
}

}  // namespace recon::engine
