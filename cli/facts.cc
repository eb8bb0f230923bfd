#include "cli/facts.h"

#include "base/strings.h"

namespace recon::cli {

engine::Json FactValue(const std::string& text) {
  auto parsed = engine::ParseJson(text);
  if (parsed.ok()) return std::move(*parsed);
  return text;
}

absl::StatusOr<engine::Json> ParseFacts(const std::vector<std::string>& flags) {
  engine::Json facts = engine::Json::object();
  for (const auto& f : flags) {
    size_t eq = f.find('=');
    if (eq == std::string::npos || eq == 0)
      return absl::InvalidArgumentError(recon::StrCat("--fact ", f, ": expected key=value"));
    facts[f.substr(0, eq)] = FactValue(f.substr(eq + 1));
  }
  return facts;
}

}  // namespace recon::cli
