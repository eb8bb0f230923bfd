#include "cli/shadow_options.h"

#include <algorithm>

#include "absl/strings/str_split.h"
#include "base/strings.h"
#include "cli/domains.h"
#include "engine/time_format.h"

namespace recon::cli {

std::map<std::string, std::vector<std::string>> DefaultShadowManagers() {
  // The upstream binaries' names: client-go and controller-runtime default
  // the field manager to the executable's name.
  return {{"samples", {"cluster-samples-operator"}},
          {"olm", {"catalog", "olm"}},
          {"aro", {"aro"}},
          {"disconnected", {"manager"}}};
}

absl::StatusOr<shadow::Options> ParseShadowOptions(const Args& args, const engine::Engine& engine) {
  shadow::Options out;
  if (auto w = args.Get("shadow-window")) {
    auto d = engine::ParseDurationNs(*w);
    if (!d.ok() || *d <= 0)
      return absl::InvalidArgumentError(
          recon::StrCat("--shadow-window ", *w, ": expected a duration like 2m or 30s"));
    out.window_ns = *d;
  }
  auto managers = DefaultShadowManagers();
  for (const auto& m : args.GetAll("shadow-manager")) {
    size_t eq = m.find('=');
    if (eq == std::string::npos || eq == 0)
      return absl::InvalidArgumentError(
          recon::StrCat("--shadow-manager ", m, ": expected DOMAIN=MANAGER[,MANAGER...]"));
    std::vector<std::string> names;
    for (absl::string_view n : absl::StrSplit(m.substr(eq + 1), ',', absl::SkipEmpty()))
      names.emplace_back(n.data(), n.size());
    managers[m.substr(0, eq)] = std::move(names);
  }
  std::vector<std::string> running;
  for (const auto& r : engine.reducers()) {
    running.emplace_back(r->Domain());
    auto free_text = r->Describe().free_text_messages;
    if (!free_text.empty()) out.free_text[std::string(r->Domain())] = std::move(free_text);
    auto unordered = r->Describe().unordered_lists;
    if (!unordered.empty()) out.unordered[std::string(r->Domain())] = std::move(unordered);
    auto opaque = r->Describe().opaque_values;
    if (!opaque.empty()) out.opaque[std::string(r->Domain())] = std::move(opaque);
  }
  for (const auto& [domain, names] : managers) {
    if (std::find(running.begin(), running.end(), domain) == running.end()) {
      auto known = DomainNames();
      if (std::find(known.begin(), known.end(), domain) == known.end())
        return absl::InvalidArgumentError(recon::StrCat("--shadow-manager ", domain, "=...: no such domain"));
      continue;  // a domain this run does not shadow
    }
    if (!names.empty()) out.managers[domain] = names;
  }
  return out;
}

}  // namespace recon::cli
