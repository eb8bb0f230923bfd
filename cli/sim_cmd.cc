// recon sim: runs the domains against a simulated cluster from a scenario.
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "adapters/sim/api_server.h"
#include "adapters/sim/arm_server.h"
#include "adapters/sim/olm_stand_in.h"
#include "adapters/sim/runner.h"
#include "adapters/sim/scenario.h"
#include "adapters/sim/simulator.h"
#include "adapters/sim/tls_certs.h"
#include "adapters/sim/tls_frontend.h"
#include "base/strings.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/domains.h"
#include "cli/facts.h"
#include "cli/io.h"
#include "cli/sim_api.h"
#include "cli/store_open.h"
#include "engine/time_format.h"
#include "soak/olm_bundles.h"
#include "store/memory_store.h"

namespace recon::cli {
namespace {

// Loads and validates the catalog directory `dir`: the bundles the
// simulated OLM install step installs from.
absl::StatusOr<std::shared_ptr<const sim::OlmBundles>> LoadOlmBundles(const std::string& dir) {
  auto files = LoadDirectory(dir);
  if (!files.ok()) return files.status();
  auto idx = olm::CatalogIndex::Load(*files);
  if (!idx.ok()) return absl::InvalidArgumentError(recon::StrCat(dir, ": ", Sv(idx.status().message())));
  return std::shared_ptr<const sim::OlmBundles>(soak::OlmBundlesOf(**idx));
}

constexpr char kUsage[] =
    "usage: recon sim --scenario FILE [options]\n"
    "Runs the domains against a simulated cluster (schema: adapters/sim/README.md) and\n"
    "prints a summary. With --store the whole log (events and actions) is kept there, so\n"
    "`recon replay --check --store DIR` and `recon explain --store DIR` work on it\n"
    "afterwards; without it the log lives in memory and is gone when sim exits.\n"
    "  --store DIR         store to write, a RocksDB directory or etcd://HOST:PORT/PREFIX\n"
    "                      (must be empty or not exist yet)\n"
    "  --until-converged   stop once nothing is pending but timers and the cluster is quiet\n"
    "  --max-time D        virtual time limit (default 1h)\n"
    "  --domains a,b       run only these domains (default: all)\n"
    "  --set k=v           domain option (repeatable), recorded in the log; wins over the\n"
    "                      scenario's \"set\"\n"
    "  --seed N            override the scenario's seed\n"
    "  --fact k=v          cluster fact (repeatable; a JSON value or a string), wins over the\n"
    "                      scenario's \"facts\"\n" RECON_SIM_API_USAGE
    "       recon sim serve --port N [options]   (serve --help)\n";

constexpr char kServeUsage[] =
    "usage: recon sim serve --port N [options]\n"
    "Serves a simulated cluster over the Kubernetes HTTP API (plain HTTP; see\n"
    "adapters/sim/README.md, \"Serving\") until SIGINT or SIGTERM. Prints the URL and a\n"
    "kubeconfig.\n"
    "  --port N              port to listen on (0: any free port)\n"
    "  --host H              address to bind (default 127.0.0.1)\n"
    "  --scenario FILE       initial objects, imports, edits, faults (default: empty cluster)\n"
    "  --speed X             virtual seconds per real second (default 1)\n"
    "  --history N           watch events kept for resuming watches (default 1000)\n"
    "  --token T             require \"Authorization: Bearer T\" (401 otherwise)\n"
    "  --kubeconfig-out FILE also write the kubeconfig there\n"
    "  --domains a,b         serve the resource types of these domains (default: all)\n"
    "  --olm-catalog DIR     play the cluster's part of an OLM install the agent carries out\n"
    "                        as both of OLM's operators, with the bundles of this file-based catalog\n"
    "                        (adapters/sim/olm_stand_in.h): bundle unpack Jobs run, CRDs Established,\n"
    "                        Deployments rolled out, owned objects garbage-collected\n"
    "  --arm                 also serve the cluster's Azure objects as Azure Resource Manager, and an\n"
    "                        AAD token endpoint, on a second port (adapters/azure/README.md)\n"
    "  --arm-port N          its port (default: any free port)\n"
    "  --tls DIR             with --arm: serve ARM and AAD over TLS only, with a certificate for\n"
    "                        management.azure.com, login.microsoftonline.com, graph.microsoft.com,\n"
    "                        localhost and 127.0.0.1 from a throwaway CA; writes DIR/ca.crt (for a\n"
    "                        client's SSL_CERT_FILE), DIR/tls.crt and DIR/tls.key\n" RECON_SIM_API_USAGE;

std::string Kubeconfig(const std::string& url, const std::string& token) {
  return recon::StrCat(
      "apiVersion: v1\nkind: Config\nclusters:\n- name: recon-sim\n  cluster:\n    server: ", url,
      "\ncontexts:\n- name: recon-sim\n  context:\n    cluster: recon-sim\n    user: recon-sim\n",
      "current-context: recon-sim\nusers:\n- name: recon-sim\n  user:",
      token.empty() ? " {}\n" : recon::StrCat("\n    token: ", token, "\n"));
}

int RunSimServe(int argc, char** argv) {
  int code = 0;
  auto args = ParseCommand("sim serve", kServeUsage, argc, argv,
                           {"port", "host", "scenario", "speed", "history", "token", "kubeconfig-out",
                            "domains", "crds", "olm-catalog", "arm-port", "tls"},
                           {"no-validate", "arm"}, &code);
  if (!args) return code;
  if (!args->Has("port") || !args->positionals().empty()) return UsageMismatch(kServeUsage);
  const bool serve_arm = args->Has("arm") || args->Has("arm-port");
  if (args->Has("tls") && !serve_arm)
    return UsageError("sim serve", "--tls: serves ARM and AAD; it needs --arm");
  sim::ServeOptions opts;
  auto api = SimApiOptions(*args);
  if (!api.ok()) return Fail("sim serve", api.status().message());
  opts.api = std::move(*api);
  auto port = args->GetUint("port", 0);
  if (!port.ok() || *port > 65535) return UsageError("sim serve", "--port: expected 0..65535");
  opts.port = static_cast<int>(*port);
  opts.host = args->GetOr("host", "127.0.0.1");
  opts.token = args->GetOr("token", "");
  auto history = args->GetUint("history", opts.history);
  if (!history.ok() || *history == 0) return UsageError("sim serve", "--history: expected a positive number");
  opts.history = *history;
  if (auto speed = args->Get("speed")) {
    char* end = nullptr;
    opts.speed = std::strtod(speed->c_str(), &end);
    if (end == speed->c_str() || *end != 0 || !(opts.speed > 0)) {
      return UsageError("sim serve", recon::StrCat("--speed ", *speed, ": expected a number > 0"));
    }
  }
  sim::Scenario scenario;
  scenario.name = "empty";
  if (auto file = args->Get("scenario")) {
    auto loaded = sim::LoadScenario(*file);
    if (!loaded.ok()) return Fail("sim serve", loaded.status().message());
    scenario = std::move(*loaded);
  }
  auto engine = MakeEngine(args->GetOr("domains", ""), {});
  if (!engine.ok()) return UsageError("sim serve", engine.status().message());
  if (auto dir = args->Get("olm-catalog")) {
    auto bundles = LoadOlmBundles(*dir);
    if (!bundles.ok())
      return Fail("sim serve", recon::StrCat("--olm-catalog ", *dir, ": ", bundles.status().message()));
    opts.controller = sim::OlmClusterStandIn(*bundles);
  }
  std::vector<engine::ResourceType> types;
  for (const auto& use : DomainResources(**engine)) types.push_back(use.type);

  // SIGINT/SIGTERM are taken by sigwait below; the server thread must not
  // get them, so they are blocked before it starts.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  auto server = sim::ApiServer::Start(scenario, opts, types);
  if (!server.ok()) return Fail("sim serve", server.status().message());
  std::string kubeconfig = Kubeconfig((*server)->url(), opts.token);
  std::unique_ptr<sim::ArmServer> arm;
  std::unique_ptr<sim::TlsFrontend> tls;
  std::string arm_url;
  if (serve_arm) {
    sim::ArmServeOptions arm_opts;
    arm_opts.host = opts.host;
    auto arm_port = args->GetUint("arm-port", 0);
    if (!arm_port.ok() || *arm_port > 65535) return UsageError("sim serve", "--arm-port: expected 0..65535");
    // Under --tls the plain server is the front's backend, on loopback.
    arm_opts.port = args->Has("tls") ? 0 : static_cast<int>(*arm_port);
    if (args->Has("tls")) {
      arm_opts.host = "127.0.0.1";
      arm_opts.public_scheme = "https";
    }
    auto started = sim::ArmServer::Start(**server, arm_opts);
    if (!started.ok()) return Fail("sim serve", started.status().message());
    arm = std::move(*started);
    arm_url = arm->url();
    if (auto dir = args->Get("tls")) {
      auto material = sim::MakeServingCertificate(sim::AzureServingHosts(), std::time(nullptr), 30);
      if (!material.ok()) return Fail("sim serve", material.status().message());
      if (auto w = sim::WriteTlsMaterial(*material, *dir); !w.ok()) return Fail("sim serve", w.message());
      auto front = sim::TlsFrontend::Start(*material, opts.host, static_cast<int>(*arm_port), arm->port());
      if (!front.ok()) return Fail("sim serve", front.status().message());
      tls = std::move(*front);
      arm_url = tls->url();
    }
  }
  std::printf("serving %s (scenario %s, speed %g); port %d\n", (*server)->url().c_str(),
              scenario.name.c_str(), opts.speed, (*server)->port());
  if (arm)
    std::printf("serving ARM and AAD at %s (agent: --azure --arm-endpoint %s --aad-endpoint %s)\n",
                arm_url.c_str(), arm_url.c_str(), arm_url.c_str());
  if (tls)
    std::printf("TLS: trust %s/ca.crt (SSL_CERT_FILE=%s/ca.crt)\n", args->Get("tls")->c_str(),
                args->Get("tls")->c_str());
  std::printf("# kubeconfig:\n%s", kubeconfig.c_str());
  std::fflush(stdout);
  if (auto out = args->Get("kubeconfig-out")) {
    // Written whole then renamed, and last, after every endpoint is up and
    // printed: a script that waits for the file finds both it and the output complete.
    std::string tmp = *out + ".tmp";
    std::ofstream f(tmp, std::ios::trunc);
    f << kubeconfig;
    f.close();
    std::error_code ec;
    std::filesystem::rename(tmp, *out, ec);
    if (!f || ec) return Fail("sim serve", recon::StrCat("--kubeconfig-out ", *out, ": cannot write"));
  }
  int sig = 0;
  sigwait(&stop_signals, &sig);
  tls.reset();
  if (arm) arm->Stop();
  (*server)->Stop();
  std::printf("stopped (%s)\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
  return 0;
}

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
  if (argc > 0 && std::string_view(argv[0]) == "serve") return RunSimServe(argc - 1, argv + 1);
  int code = 0;
  auto args = ParseCommand("sim", kUsage, argc, argv,
                           {"scenario", "store", "max-time", "domains", "set", "seed", "fact", "crds"},
                           {"until-converged", "no-validate"}, &code);
  if (!args) return code;
  if (!args->Has("scenario") || !args->positionals().empty()) return UsageMismatch(kUsage);
  // Everything is checked before the store is opened: a refused run must
  // leave no store, or a store that every rerun refuses as not empty.
  auto api = SimApiOptions(*args);
  if (!api.ok()) return Fail("sim", api.status().message());
  auto scenario = sim::LoadScenario(*args->Get("scenario"));
  if (!scenario.ok()) return Fail("sim", scenario.status().message());
  if (args->Has("seed")) {
    auto seed = args->GetUint("seed", scenario->seed);
    if (!seed.ok()) return UsageError("sim", seed.status().message());
    scenario->seed = *seed;
  }
  auto facts = ParseFacts(args->GetAll("fact"));
  if (!facts.ok()) return UsageError("sim", facts.status().message());
  for (auto it = facts->begin(); it != facts->end(); ++it) scenario->facts[it.key()] = it.value();
  sim::RunOptions run;
  run.until_converged = args->Has("until-converged");
  if (auto max = args->Get("max-time")) {
    auto d = engine::ParseDurationNs(*max);
    if (!d.ok()) return UsageError("sim", recon::StrCat("--max-time ", *max, ": ", Sv(d.status().message())));
    run.max_time_ns = *d;
  }
  run.options = scenario->options;
  if (!scenario->samples_inventory.empty())
    SetOption(run.options, "samples.inventory", scenario->samples_inventory);
  if (auto s = ValidateOptions(run.options, recon::StrCat(*args->Get("scenario"), ": option")); !s.ok())
    return Fail("sim", s.message());
  auto sets = SplitSets(args->GetAll("set"));
  if (!sets.ok()) return UsageError("sim", sets.status().message());
  if (auto s = ValidateOptions(*sets); !s.ok()) return UsageError("sim", s.message());
  for (const auto& [key, value] : *sets) SetOption(run.options, key, value);
  run.load_directory = [](const std::string& dir) { return LoadDirectory(dir); };

  auto engine = MakeEngine(args->GetOr("domains", ""), {});
  if (!engine.ok()) return UsageError("sim", engine.status().message());
  std::unique_ptr<store::EventStore> st;
  if (auto dir = args->Get("store")) {
    auto opened = OpenStoreAt(*dir, StoreAccess::kCreate, "nosync", StoreFlagsFrom(*args));
    if (!opened.ok()) return Fail("sim", opened.status().message());
    st = std::move(*opened);
    // The store's own key, so hashes agree with later appends to it.
    auto redactor = RedactorFor(*dir, *st);
    if (!redactor.ok()) return Fail("sim", redactor.status().message());
    run.redactor = std::make_shared<const runtime::Redactor>(std::move(*redactor));
  } else {
    st = std::make_unique<store::MemoryStore>();
  }
  sim::Simulator simulator(*scenario, std::move(*api));
  auto summary = sim::RunScenario(*scenario, simulator, **engine, runtime::RunOnNewLog(**engine, *st), run);
  if (!summary.ok()) return Fail("sim", summary.status().message());
  std::fputs(sim::FormatSummary(*scenario, *summary, simulator).c_str(), stdout);
  if (args->Has("store")) {
    std::printf("log: %s (recon replay --check --store %s)\n", args->Get("store")->c_str(),
                args->Get("store")->c_str());
  } else {
    std::printf("log: not kept (in memory); --store DIR keeps it for replay and explain\n");
  }
  return run.until_converged && !summary->converged ? 1 : 0;
}

}  // namespace recon::cli
