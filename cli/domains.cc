#include "cli/domains.h"

#include <algorithm>
#include <filesystem>
#include <functional>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/strings.h"
#include "cli/io.h"
#include "domains/aro/reducer.h"
#include "domains/disconnected/reducer.h"
#include "domains/olm/reducer.h"
#include "domains/samples/reducer.h"

namespace recon::cli {
namespace {

struct DomainFactory {
  const char* name;
  std::function<std::unique_ptr<engine::Reducer>()> make;
};

// Fixed order: reducers run in this order on every event.
const std::vector<DomainFactory>& Factories() {
  static const auto* factories = new std::vector<DomainFactory>{
      {"samples", [] { return samples::MakeReducer(); }},
      {"olm", [] { return olm::MakeReducer(); }},
      {"aro", [] { return aro::MakeReducer(); }},
      {"disconnected", [] { return disconnected::MakeReducer(); }},
  };
  return *factories;
}

}  // namespace

std::vector<std::string> DomainNames() {
  std::vector<std::string> out;
  for (const auto& f : Factories()) out.push_back(f.name);
  return out;
}

absl::StatusOr<std::vector<std::unique_ptr<engine::Reducer>>> MakeReducers(const std::string& only) {
  std::vector<std::string> wanted;
  if (!only.empty()) {
    for (absl::string_view part : absl::StrSplit(only, ',', absl::SkipEmpty())) wanted.emplace_back(part);
    for (const auto& w : wanted) {
      bool known = false;
      for (const auto& f : Factories()) known |= w == f.name;
      if (!known) {
        std::string names;
        for (const auto& f : Factories()) recon::StrAppend(&names, names.empty() ? "" : ", ", f.name);
        return absl::InvalidArgumentError(recon::StrCat("--domains: unknown domain \"", w,
                                                        "\" (known: ", names.empty() ? "none" : names, ")"));
      }
    }
  }
  std::vector<std::unique_ptr<engine::Reducer>> out;
  for (const auto& f : Factories()) {
    if (wanted.empty() || std::find(wanted.begin(), wanted.end(), f.name) != wanted.end())
      out.push_back(f.make());
  }
  return out;
}

std::vector<engine::ResourceUse> DomainResources(const engine::Engine& engine) {
  std::vector<engine::ResourceUse> all;
  for (const auto& r : engine.reducers()) {
    auto uses = r->Describe().resources;
    all.insert(all.end(), uses.begin(), uses.end());
  }
  return engine::MergeResourceUses(all);
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> SplitSets(
    const std::vector<std::string>& sets) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& set : sets) {
    size_t eq = set.find('=');
    if (eq == std::string::npos)
      return absl::InvalidArgumentError(recon::StrCat("--set ", set, ": expected domain.key=value"));
    out.emplace_back(set.substr(0, eq), set.substr(eq + 1));
  }
  return out;
}

absl::Status ValidateOptions(const std::vector<std::pair<std::string, std::string>>& options,
                             std::string_view origin) {
  auto reducers = MakeReducers("");
  if (!reducers.ok()) return reducers.status();
  for (const auto& [key, value] : options) {
    const std::string set = recon::StrCat(origin, " ", key, "=", value);
    size_t dot = key.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == key.size())
      return absl::InvalidArgumentError(recon::StrCat(set, ": expected domain.key=value"));
    std::string_view domain = std::string_view(key).substr(0, dot),
                     name = std::string_view(key).substr(dot + 1);
    engine::Reducer* reducer = nullptr;
    for (auto& r : *reducers) {
      if (r->Domain() == domain) reducer = r.get();
    }
    if (reducer == nullptr) {
      return absl::InvalidArgumentError(recon::StrCat(
          set, ": unknown domain \"", domain, "\" (known: ", absl::StrJoin(DomainNames(), ", "), ")"));
    }
    bool directory = false;
    for (const auto& spec : reducer->Describe().options)
      directory |= spec.key == name && spec.directory_content;
    if (directory) {
      std::error_code ec;
      if (!std::filesystem::is_directory(value, ec))
        return absl::InvalidArgumentError(recon::StrCat(set, ": not a directory"));
      continue;
    }
    if (auto s = reducer->SetOption(name, value); !s.ok())
      return absl::InvalidArgumentError(recon::StrCat(set, ": ", Sv(s.message())));
  }
  return absl::OkStatus();
}

absl::Status ApplyPlainOptions(engine::Engine& engine, const std::vector<std::string>& sets) {
  auto split = SplitSets(sets);
  if (!split.ok()) return split.status();
  auto specs = engine.OptionSpecs();
  for (const auto& [key, value] : *split) {
    auto spec = specs.find(key);
    if (spec != specs.end() && spec->second.directory_content) continue;
    if (auto s = engine.SetOption(key, value, /*override_log=*/false); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<engine::ResourceUse>> DomainResourcesOf(const std::string& only) {
  auto engine = MakeEngine(only, {});
  if (!engine.ok()) return engine.status();
  return DomainResources(**engine);
}

absl::StatusOr<records::ContentFiles> LoadDirectory(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return absl::NotFoundError(recon::StrCat(dir, ": not a directory"));
  records::ContentFiles files;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    auto data = ReadInput(it->path().string());
    if (!data.ok()) return data.status();
    files.emplace_back(fs::relative(it->path(), dir).generic_string(), std::move(*data));
  }
  if (ec) return absl::UnavailableError(recon::StrCat(dir, ": ", ec.message()));
  std::sort(files.begin(), files.end());
  return files;
}

absl::StatusOr<std::unique_ptr<engine::Engine>> MakeEngine(const std::string& only,
                                                           const std::vector<std::string>& sets) {
  auto reducers = MakeReducers(only);
  if (!reducers.ok()) return reducers.status();
  auto engine = std::make_unique<engine::Engine>(std::move(*reducers));
  auto specs = engine->OptionSpecs();
  std::vector<std::string> all_domains = DomainNames();
  for (const auto& set : sets) {
    size_t eq = set.find('=');
    if (eq == std::string::npos) {
      return absl::InvalidArgumentError(recon::StrCat("--set ", set, ": expected domain.key=value"));
    }
    std::string key = set.substr(0, eq), value = set.substr(eq + 1);
    std::string domain = key.substr(0, key.find('.'));
    if (std::find(all_domains.begin(), all_domains.end(), domain) == all_domains.end()) {
      return absl::InvalidArgumentError(recon::StrCat("--set ", set, ": unknown domain \"", domain, "\""));
    }
    auto spec = specs.find(key);
    if (spec != specs.end() && spec->second.directory_content) {
      auto files = LoadDirectory(value);
      if (!files.ok())
        return absl::InvalidArgumentError(recon::StrCat("--set ", set, ": ", Sv(files.status().message())));
      std::string digest = records::ContentDigest(*files);
      engine->SetContent(spec->second.content_name, digest,
                         std::make_shared<const records::ContentFiles>(std::move(*files)));
      value = digest;
    }
    if (auto s = engine->SetOption(key, value, /*override_log=*/true); !s.ok()) {
      return absl::InvalidArgumentError(recon::StrCat("--set ", Sv(s.message())));
    }
  }
  return engine;
}

}  // namespace recon::cli
