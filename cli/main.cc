// recon: the event-sourced reconciliation engine's command line.
#include <cstdio>
#include <cstring>
#include <string_view>

#include "cli/commands.h"
#include "cli/version.h"

namespace {

struct Command {
  std::string_view name;
  int (*run)(int, char**);
  std::string_view summary;
};

constexpr Command kCommands[] = {
    {"agent", recon::cli::RunAgent, "run as a long-lived agent against a cluster (agent --help)"},
    {"replay", recon::cli::RunReplay, "recompute the actions of a log; --check, --diff (replay --help)"},
    {"explain", recon::cli::RunExplain, "why each domain was where it was, as a timeline (explain --help)"},
    {"sim", recon::cli::RunSim, "run domains against a simulated cluster from a scenario (sim --help)"},
    {"snapshot", recon::cli::RunSnapshot, "write the engine state at the last seq into the store"},
    {"log", recon::cli::RunLog, "import, export and inspect the event log (log --help)"},
    {"catalog", recon::cli::RunCatalog, "OLM file-based catalogs: validate, render, graph (catalog --help)"},
    {"mirror-list", recon::cli::RunMirrorList, "images to mirror when disconnected (mirror-list --help)"},
    {"bench", recon::cli::RunBench, "measure throughput (bench --help)"},
    {"soak", recon::cli::RunSoak,
     "fault-injection soak: agent vs simulated API, kills, outages (soak --help)"},
    {"shadow", recon::cli::RunShadow,
     "shadow report: predictions against what the real operators did (shadow --help)"},
    {"rbac", recon::cli::RunRbac, "least-privilege RBAC for the agent's domains, as YAML (rbac --help)"},
};

void Usage(FILE* out) {
  std::fprintf(
      out, "usage: recon <command> [options]   (recon --version: version, commit, libraries)\n\ncommands:\n");
  for (const auto& c : kCommands) {
    std::fprintf(out, "  %-12.*s %.*s\n", static_cast<int>(c.name.size()), c.name.data(),
                 static_cast<int>(c.summary.size()), c.summary.data());
  }
  std::fprintf(out,
               "\nexit codes: 0 ok; 1 a failure (bad input, store, cluster) or a finding (divergence,\n"
               "check findings); 2 a usage error (unknown option, missing argument, bad option value)\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    Usage(stderr);
    return 2;
  }
  std::string_view cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    Usage(stdout);
    return 0;
  }
  if (cmd == "--version" || cmd == "version") {
    std::fputs(recon::cli::VersionText().c_str(), stdout);
    return 0;
  }
  for (const auto& c : kCommands) {
    if (c.name == cmd) return c.run(argc - 2, argv + 2);
  }
  std::fprintf(stderr, "recon: unknown command \"%s\"\n", argv[1]);
  Usage(stderr);
  return 2;
}
