// recon sim: runs the domains against a simulated cluster from a scenario.
#include <algorithm>
#include <cstdio>

#include "adapters/sim/runner.h"
#include "adapters/sim/scenario.h"
#include "adapters/sim/simulator.h"
#include "base/strings.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/domains.h"
#include "cli/io.h"
#include "engine/time_format.h"
#include "store/memory_store.h"

namespace recon::cli {
namespace {

constexpr char kUsage[] =
    "usage: recon sim --scenario FILE [options]\n"
    "Runs the domains against a simulated cluster (schema: adapters/sim/README.md) and\n"
    "prints a summary. The whole log is written to the store, so `recon replay --check\n"
    "--store DIR` can verify it afterwards.\n"
    "  --store DIR         RocksDB store to write (must be empty; default: in memory)\n"
    "  --until-converged   stop once nothing is pending but timers and the cluster is quiet\n"
    "  --max-time D        virtual time limit (default 1h)\n"
    "  --domains a,b       run only these domains (default: all)\n"
    "  --set k=v           domain option (repeatable), recorded in the log; wins over the\n"
    "                      scenario's \"set\"\n"
    "  --seed N            override the scenario's seed\n";

void SetOption(std::vector<std::pair<std::string, std::string>>& options, const std::string& key,
               const std::string& value) {
  auto it = std::find_if(options.begin(), options.end(), [&](const auto& kv) { return kv.first == key; });
  if (it != options.end()) {
    it->second = value;
  } else {
    options.emplace_back(key, value);
  }
}

}  // namespace

int RunSim(int argc, char** argv) {
  auto args = Args::Parse(argc, argv, {"scenario", "store", "max-time", "domains", "set", "seed"},
                          {"until-converged"});
  if (!args.ok()) return Fail("sim", args.status().message());
  if (args->Has("help")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (!args->Has("scenario") || !args->positionals().empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  auto scenario = sim::LoadScenario(*args->Get("scenario"));
  if (!scenario.ok()) return Fail("sim", scenario.status().message());
  if (args->Has("seed")) {
    auto seed = args->GetUint("seed", scenario->seed);
    if (!seed.ok()) return Fail("sim", seed.status().message());
    scenario->seed = *seed;
  }
  sim::RunOptions run;
  run.until_converged = args->Has("until-converged");
  if (auto max = args->Get("max-time")) {
    auto d = engine::ParseDurationNs(*max);
    if (!d.ok()) return Fail("sim", recon::StrCat("--max-time ", *max, ": ", Sv(d.status().message())));
    run.max_time_ns = *d;
  }
  run.options = scenario->options;
  if (!scenario->samples_inventory.empty())
    SetOption(run.options, "samples.inventory", scenario->samples_inventory);
  for (const auto& set : args->GetAll("set")) {
    size_t eq = set.find('=');
    if (eq == std::string::npos)
      return Fail("sim", recon::StrCat("--set ", set, ": expected domain.key=value"));
    SetOption(run.options, set.substr(0, eq), set.substr(eq + 1));
  }
  std::vector<std::string> domains = DomainNames();
  for (const auto& [key, value] : run.options) {
    std::string domain = key.substr(0, key.find('.'));
    if (std::find(domains.begin(), domains.end(), domain) == domains.end()) {
      return Fail("sim", recon::StrCat("option ", key, "=", value, ": unknown domain \"", domain, "\""));
    }
  }
  run.load_directory = [](const std::string& dir) { return LoadDirectory(dir); };

  auto engine = MakeEngine(args->GetOr("domains", ""), {});
  if (!engine.ok()) return Fail("sim", engine.status().message());
  std::unique_ptr<store::EventStore> st;
  if (auto dir = args->Get("store")) {
    auto opened = OpenStore(*dir, true, "nosync");
    if (!opened.ok()) return Fail("sim", opened.status().message());
    st = std::move(*opened);
  } else {
    st = std::make_unique<store::MemoryStore>();
  }
  sim::Simulator simulator(*scenario);
  auto summary = sim::RunScenario(*scenario, simulator, **engine, *st, run);
  if (!summary.ok()) return Fail("sim", summary.status().message());
  std::fputs(sim::FormatSummary(*scenario, *summary, simulator).c_str(), stdout);
  if (args->Has("store"))
    std::printf("log: %s (recon replay --check --store %s)\n", args->Get("store")->c_str(),
                args->Get("store")->c_str());
  return run.until_converged && !summary->converged ? 1 : 0;
}

}  // namespace recon::cli
