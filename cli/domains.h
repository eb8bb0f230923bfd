// The one place that knows every domain: builds the reducers a command runs.
#ifndef RECON_CLI_DOMAINS_H_
#define RECON_CLI_DOMAINS_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/engine.h"

namespace recon::cli {

// Names of every domain, in the fixed order reducers run.
std::vector<std::string> DomainNames();

// `only` is the --domains value ("a,b"); empty means every domain.
absl::StatusOr<std::vector<std::unique_ptr<engine::Reducer>>> MakeReducers(const std::string& only);

// Builds an engine with its domains and applies --set options: "k=v" each.
// A directory-content option (e.g. samples.inventory=DIR) loads DIR as the
// domain's Content input before line 1.
absl::StatusOr<std::unique_ptr<engine::Engine>> MakeEngine(const std::string& only,
                                                           const std::vector<std::string>& sets);

// Checks "domain.key" options with each domain's own parser (a fresh
// reducer's SetOption, as the engine applies them when it reduces the
// Cluster event), and that a directory option names a directory. Called
// before a store is opened, so a bad value fails the command before its
// first append instead of at the seq that records the option.
// `origin` starts each message: "--set" or where the options came from.
absl::Status ValidateOptions(const std::vector<std::pair<std::string, std::string>>& options,
                             std::string_view origin = "--set");

// Splits --set values "domain.key=value" into (key, value).
// Applies the --set options that are not directories (whose content a run
// records as Content events) to the engine at once, without overriding what
// a log says: what a domain watches and writes may depend on them (e.g.
// olm.executePlans), and a live adapter is told the resources before the
// log's Cluster event sets the options again.
absl::Status ApplyPlainOptions(engine::Engine& engine, const std::vector<std::string>& sets);

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> SplitSets(
    const std::vector<std::string>& sets);

// The resource types the engine's domains watch and write, merged
// (engine::MergeResourceUses): what a live adapter lists and watches and
// what deploy/'s ClusterRole must grant.
std::vector<engine::ResourceUse> DomainResources(const engine::Engine& engine);
// The same for the domains of a --domains value (`only`), with no options set.
absl::StatusOr<std::vector<engine::ResourceUse>> DomainResourcesOf(const std::string& only);

// Loads every file under `dir` (recursively; paths relative to dir, sorted).
absl::StatusOr<records::ContentFiles> LoadDirectory(const std::string& dir);

}  // namespace recon::cli

#endif  // RECON_CLI_DOMAINS_H_
