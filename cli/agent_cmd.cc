// recon agent: the long-lived loop (runtime/runtime.h) against a cluster:
// the simulated one (adapters/sim) or a live one (adapters/k8s) reached
// through a kubeconfig or the pod's service account.
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>

#include "adapters/azure/adapter.h"
#include "adapters/k8s/adapter.h"
#include "adapters/k8s/kubeconfig.h"
#include "adapters/sim/cluster_adapter.h"
#include "adapters/sim/runner.h"
#include "adapters/sim/scenario.h"
#include "base/strings.h"
#include "cli/args.h"
#include "cli/azure_options.h"
#include "cli/commands.h"
#include "cli/domains.h"
#include "cli/facts.h"
#include "cli/io.h"
#include "cli/shadow_audit.h"
#include "cli/shadow_monitor.h"
#include "cli/shadow_options.h"
#include "cli/sim_api.h"
#include "cli/stop_signal.h"
#include "cli/store_open.h"
#include "engine/time_format.h"
#include "runtime/runtime.h"
#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/spdlog.h"

namespace recon::cli {
namespace {

// The "serving" line, said when the server listens, not at the first burst:
// the initial lists of a large cluster come before that (60 s on a real one).
std::function<void(int)> ServingLine(std::string host) {
  return [host = std::move(host)](int port) {
    spdlog::info("serving /healthz /readyz /metrics on {}:{}", host, port);
  };
}

constexpr char kUsage[] =
    "usage: recon agent --cluster sim|KUBECONFIG|incluster [options]\n"
    "Runs the engine as a long-lived agent: observations are appended to the store, reduced,\n"
    "and the actions applied to the cluster through a rate-limited queue with per-object\n"
    "backoff. SIGINT/SIGTERM: finish the burst, write a snapshot, exit 0.\n"
    "  --cluster sim        the simulated cluster\n"
    "  --cluster PATH       a live cluster through this kubeconfig (also: --cluster kubeconfig, which\n"
    "                       uses --kubeconfig, else $KUBECONFIG's first entry, else ~/.kube/config)\n"
    "  --cluster incluster  a live cluster through the pod's service account\n"
    "  --scenario FILE      the simulated cluster's scenario (adapters/sim/README.md)\n"
    "  --crds DIR           (sim) also serve the CRDs in DIR besides the real ones built in\n"
    "  --no-validate        (sim) no schema or built-in validation of writes\n"
    "  --store DIR          RocksDB store (default ./data/store)\n"
    "  --durability M       sync (default) or nosync\n"
    "  --until-converged    exit once the cluster is quiet and nothing is pending\n"
    "  --max-time D         stop after D of cluster time (e.g. 1h)\n"
    "  --speed X|max        simulated seconds per real second (default max: no waiting)\n"
    "  --port N             serve /healthz, /readyz, /metrics on 127.0.0.1:N (0: any port)\n"
    "  --host ADDR          listen on ADDR instead of 127.0.0.1 (e.g. 0.0.0.0 in a pod)\n"
    "  --set k=v            domain option (repeatable), recorded in the log\n"
    "  --domains a,b        run only these domains\n"
    "  --shadow             shadow mode (issue 21): watch, record and reduce, but send no write (timers\n"
    "                       and read-only probes still run; no leader election); every write is a\n"
    "                       prediction matched against what the cluster then shows (shadow/README.md),\n"
    "                       counted in /metrics and recomputed offline by `recon shadow report`\n"
    "  --audit-log FILE     with --shadow: also judge on kube-apiserver's audit log as it grows (no-op,\n"
    "                       refused writes and deletes seen; recon_shadow_audit_findings in /metrics)\n"
    "  --audit-user DOMAIN=U1,U2  the operator's user names in that log (as for `shadow report`)\n"
    "%s"
    "live cluster options (adapters/k8s/README.md):\n"
    "  --kubeconfig FILE    kubeconfig path    --context NAME   context (default: current-context)\n"
    "  --namespace NS       namespace of the leader Lease (default: the context's, else default)\n"
    "  --lease-name NAME    leader Lease name (default recon-agent); --no-leader-election to act alone\n"
    "  --identity ID        leader identity (default: hostname + random suffix)\n"
    "  --field-manager NAME the fieldManager of every write (metadata.managedFields[].manager;\n"
    "                       default recon); e.g. the real operator's, to play it beside a shadow agent\n"
    "  --qps X --burst N    client-side request rate limit (default 20 / 30)\n"
    "  --queue-qps X --queue-burst N  the work queue's overall rate (default 10 / 100, as\n"
    "                       controller-runtime's; 0: unlimited)\n"
    "  --fact k=v           cluster fact recorded in the log (repeatable), e.g. architecture=arm64;\n"
    "                       a JSON value (object, array, number, true/false, null) is taken as\n"
    "                       JSON, anything else as a string (also with --cluster sim)\n"
    "  --probe-via URL      answer probe actions through a sim server's /recon-sim/v1/probe (tests)\n"
    "  --watch-timeout S    minimum watch timeoutSeconds (default 300; drawn from [S, 2S))\n"
    "  --catalog NS/NAME=DIR  an OLM catalog's FBC directory (repeatable): logged as the Content\n"
    "                       olm/catalog/NS/NAME that CatalogSource NS/NAME serves\n"
    "  --catalog-poll D     re-read the --catalog directories every D (e.g. 10s; default: only at\n"
    "                       start): a changed catalog is logged as a catalog update\n"
    "Azure (adapters/azure/README.md): subnets and NSGs from Azure Resource Manager\n"
    "  --azure              read and write network.azure.com objects through ARM, not the cluster API\n"
    "  --azure-credentials FILE|env  the service principal (azure_client_id=..., azure_client_secret=...,\n"
    "                       azure_tenant_id=...); env: from AZURE_CLIENT_ID, AZURE_TENANT_ID and\n"
    "                       AZURE_CLIENT_SECRET or AZURE_FEDERATED_TOKEN_FILE (and AZURE_AUTHORITY_HOST),\n"
    "                       as the ARO operator's DefaultAzureCredential reads its pod's environment;\n"
    "                       default: the Secret kube-system/azure-credentials\n"
    "  --arm-endpoint URL   ARM (default https://management.azure.com)\n"
    "  --aad-endpoint URL   AAD token endpoint (default https://login.microsoftonline.com)\n";

// The compact live line on a terminal; plain log lines otherwise.
class ProgressLine {
 public:
  ProgressLine() : tty_(isatty(STDERR_FILENO)) {}
  void Update(const runtime::RuntimeStatus& s) {
    // Converged is reported once per quiet spell, not on every idle wake.
    bool news = s.converged && !was_converged_;
    was_converged_ = s.converged;
    if (++calls_ % (tty_ ? 1 : 200) != 0 && !news) return;
    std::string line = recon::StrCat(engine::FormatRfc3339Seconds(s.now_ns), "  events ", s.events,
                                     "  actions ", s.actions, "  pending ", s.pending);
    if (!s.last_condition.empty()) recon::StrAppend(&line, "  | ", s.last_condition.substr(0, 90));
    if (tty_) {
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
      std::fflush(stderr);
    } else {
      spdlog::info("{}", line);
    }
  }
  void Done() {
    if (tty_) std::fputs("\r\033[K", stderr);
  }

 private:
  bool tty_;
  uint64_t calls_ = 0;
  bool was_converged_ = false;
};

// The options a run starts with go into the log: directory inputs as
// Content events, the rest inside the Cluster event's facts (as the sim's
// preamble does), defaults too, so a replay needs no --set.
absl::Status LivePreamble(const engine::Engine& engine, const Args& args, k8s::K8sOptions* out) {
  auto specs = engine.OptionSpecs();
  auto parsed = ParseFacts(args.GetAll("fact"));
  if (!parsed.ok()) return parsed.status();
  engine::Json facts = std::move(*parsed);
  engine::Json logged = engine::Json::object();
  for (const auto& set : args.GetAll("set")) {
    size_t eq = set.find('=');
    if (eq == std::string::npos)
      return absl::InvalidArgumentError(recon::StrCat("--set ", set, ": expected domain.key=value"));
    std::string key = set.substr(0, eq), value = set.substr(eq + 1);
    auto spec = specs.find(key);
    if (spec != specs.end() && spec->second.directory_content) {
      auto files = LoadDirectory(value);
      if (!files.ok())
        return absl::InvalidArgumentError(recon::StrCat("--set ", set, ": ", Sv(files.status().message())));
      records::EventRecord c;
      c.type = records::EventType::kContent;
      c.content_name = spec->second.content_name;
      c.content_digest = records::ContentDigest(*files);
      c.content_files = std::move(*files);
      logged[key] = c.content_digest;
      out->preamble.push_back(std::move(c));
      continue;
    }
    logged[key] = value;
  }
  engine.AddOptionDefaults(logged);
  if (!logged.empty()) facts["options"] = logged;
  out->cluster_facts = engine::Dump(facts);
  // OLM catalogs: their registry is outside the cluster's API, so the
  // agent reads them (and, with --catalog-poll, polls them) itself.
  for (const auto& cat : args.GetAll("catalog")) {
    size_t eq = cat.find('='), slash = cat.find('/');
    if (eq == std::string::npos || slash == std::string::npos || slash == 0 || slash + 1 >= eq)
      return absl::InvalidArgumentError(recon::StrCat("--catalog ", cat, ": expected NAMESPACE/NAME=DIR"));
    std::string dir = cat.substr(eq + 1);
    k8s::K8sOptions::ContentSource src;
    src.name = recon::StrCat("olm/catalog/", cat.substr(0, eq));
    src.load = [dir] { return LoadDirectory(dir); };
    auto files = src.load();
    if (!files.ok())
      return absl::InvalidArgumentError(recon::StrCat("--catalog ", cat, ": ", Sv(files.status().message())));
    records::EventRecord c;
    c.type = records::EventType::kContent;
    c.content_name = src.name;
    c.content_digest = records::ContentDigest(*files);
    c.content_files = std::move(*files);
    out->preamble.push_back(std::move(c));
    out->content_sources.push_back(std::move(src));
  }
  if (auto poll = args.Get("catalog-poll")) {
    auto d = engine::ParseDurationNs(*poll);
    if (!d.ok() || *d <= 0)
      return absl::InvalidArgumentError(
          recon::StrCat("--catalog-poll ", *poll, ": expected a duration like 10s"));
    out->content_poll_ms = std::max<int64_t>(1, *d / 1'000'000);
  }
  return absl::OkStatus();
}

std::string DefaultIdentity() {
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) != 0) std::snprintf(host, sizeof(host), "recon");
  std::random_device rd;
  char suffix[16];
  std::snprintf(suffix, sizeof(suffix), "_%08x", rd());
  return recon::StrCat(host, suffix);
}

// The live cluster's REST config: --cluster incluster, kubeconfig or a
// kubeconfig's path. Reading the environment and files happens here, never
// in reducers.
absl::StatusOr<k8s::RestConfig> LiveRestConfig(const Args& args) {
  std::string cluster = *args.Get("cluster");
  if (cluster == "incluster") {
    const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
    const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
    return k8s::InClusterConfig(host ? host : "", port ? port : "");
  }
  const char* env = std::getenv("KUBECONFIG");
  const char* home = std::getenv("HOME");
  std::string flag = args.GetOr("kubeconfig", cluster == "kubeconfig" ? "" : cluster);
  return k8s::LoadKubeconfig(k8s::KubeconfigPath(flag, env ? env : "", home ? home : "."),
                             args.GetOr("context", ""));
}

// The live adapter's options from the domains and the flags; an exit code
// when a flag is wrong (printed).
std::optional<int> LiveK8sOptions(const Args& args, const engine::Engine& engine, const k8s::RestConfig& rest,
                                  k8s::K8sOptions* out) {
  k8s::K8sOptions& options = *out;
  options.rest = rest;
  options.resources = DomainResources(engine);
  // Who needs each type, for the "not served" startup error.
  for (const auto& r : engine.reducers()) {
    for (const auto& use : r->Describe().resources) {
      std::string name =
          use.type.group.empty() ? use.type.plural : recon::StrCat(use.type.plural, ".", use.type.group);
      std::string& d = options.domains[name];
      std::string domain(r->Domain());
      if (d.find(domain) == std::string::npos) d = d.empty() ? domain : recon::StrCat(d, ", ", domain);
    }
  }
  if (args.Has("azure")) {
    // Subnets and NSGs come from ARM, not from the cluster's API.
    std::erase_if(options.resources,
                  [](const engine::ResourceUse& u) { return u.type.group == azure::kAzureGroup; });
  } else if (args.Has("azure-credentials") || args.Has("arm-endpoint") || args.Has("aad-endpoint")) {
    return UsageError("agent", "--azure-credentials, --arm-endpoint and --aad-endpoint need --azure");
  } else {
    // A real ARO cluster serves subnets and NSGs only through ARM.
    options.optional_groups[std::string(azure::kAzureGroup)] =
        "aro's subnet and NSG controllers stay idle (no subnets, no NSG reset); run with --azure to read "
        "them from Azure Resource Manager";
  }
  if (options.resources.empty()) {
    return Fail("agent", "the enabled domains declare no resource types to watch (Reducer::Resources)");
  }
  // A shadow agent takes no Lease: that would be a write.
  options.leader_election = !args.Has("no-leader-election") && !args.Has("shadow");
  options.lease.ns = args.GetOr("namespace", rest.ns.empty() ? "default" : rest.ns);
  options.lease.name = args.GetOr("lease-name", "recon-agent");
  options.lease.identity = args.GetOr("identity", DefaultIdentity());
  options.field_manager = args.GetOr("field-manager", "recon");
  // kube-apiserver refuses a longer or unprintable one (422): say so now.
  if (options.field_manager.empty() || options.field_manager.size() > 128 ||
      std::any_of(options.field_manager.begin(), options.field_manager.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
    return UsageError("agent", "--field-manager: 1 to 128 printable bytes");
  if (auto q = args.Get("qps")) {
    char* end = nullptr;
    options.api.qps = std::strtod(q->c_str(), &end);
    if (end == q->c_str() || *end != '\0' || options.api.qps < 0)
      return UsageError("agent", "--qps: expected a number >= 0 (0: unlimited)");
  }
  if (args.Has("burst")) {
    auto b = args.GetUint("burst", 30);
    if (!b.ok() || *b == 0) return UsageError("agent", "--burst: expected a positive integer");
    options.api.burst = static_cast<int>(*b);
  }
  if (args.Has("watch-timeout")) {
    auto w = args.GetUint("watch-timeout", 300);
    if (!w.ok() || *w == 0) return UsageError("agent", "--watch-timeout: expected seconds > 0");
    options.reflector.min_watch_timeout_s = static_cast<int64_t>(*w);
  }
  options.probe_via = args.GetOr("probe-via", "");
  options.seed = std::random_device{}();
  if (auto s = LivePreamble(engine, args, &options); !s.ok()) return Fail("agent", s.message());
  return std::nullopt;
}

// The live agent's runtime flags; an exit code when one is wrong (printed).
std::optional<int> LiveRuntimeOptions(const Args& args, runtime::RuntimeOptions* out) {
  runtime::RuntimeOptions& ropts = *out;
  ropts.until_converged = args.Has("until-converged");
  if (auto max = args.Get("max-time")) {
    auto d = engine::ParseDurationNs(*max);
    if (!d.ok())
      return UsageError("agent", recon::StrCat("--max-time ", *max, ": ", Sv(d.status().message())));
    ropts.max_time_ns = *d;
  }
  if (args.Has("port")) {
    auto p = args.GetUint("port", 0);
    if (!p.ok() || *p > 65535) return UsageError("agent", "--port: expected a port number");
    ropts.http_port = static_cast<int>(*p);
  }
  if (auto host = args.Get("host")) {
    if (host->empty()) return UsageError("agent", "--host: expected an address such as 127.0.0.1 or 0.0.0.0");
    ropts.http_host = *host;
  }
  if (auto q = args.Get("queue-qps")) {
    char* end = nullptr;
    ropts.backoff.qps = std::strtod(q->c_str(), &end);
    if (end == q->c_str() || *end != '\0' || ropts.backoff.qps < 0)
      return UsageError("agent", "--queue-qps: expected a number >= 0 (0: unlimited)");
  }
  if (args.Has("queue-burst")) {
    auto b = args.GetUint("queue-burst", 100);
    if (!b.ok() || *b == 0) return UsageError("agent", "--queue-burst: expected a positive integer");
    ropts.backoff.burst = static_cast<int>(*b);
  }
  return std::nullopt;
}

int RunLiveAgent(const Args& args) {
  auto rest = LiveRestConfig(args);
  if (!rest.ok()) return Fail("agent", rest.status().message());
  auto engine = MakeEngine(args.GetOr("domains", ""), {});
  if (!engine.ok()) return UsageError("agent", engine.status().message());
  // What the domains watch may depend on their options: set before the
  // adapter is told the resources (the log's Cluster event sets them again).
  if (auto s = ApplyPlainOptions(**engine, args.GetAll("set")); !s.ok()) return UsageError("agent", s.message());
  k8s::K8sOptions options;
  if (auto code = LiveK8sOptions(args, **engine, *rest, &options)) return *code;
  runtime::RuntimeOptions ropts;
  if (auto code = LiveRuntimeOptions(args, &ropts)) return *code;
  const bool use_arm = args.Has("azure");
  std::string dir = args.GetOr("store", "./data/store");
  auto st = OpenStoreAt(dir, StoreAccess::kCreate, args.GetOr("durability", "sync"), StoreFlagsFrom(args));
  if (!st.ok()) return Fail("agent", st.status().message());
  auto redactor = RedactorFor(dir, **st);
  if (!redactor.ok()) return Fail("agent", redactor.status().message());
  ropts.redactor = std::make_shared<const runtime::Redactor>(std::move(*redactor));

  runtime::RealTimeSource clock;
  runtime::Metrics metrics;
  auto monitor = ShadowSetup(args, **engine, metrics, &ropts);
  if (!monitor.ok()) return UsageError("agent", monitor.status().message());
  k8s::K8sClusterAdapter k8s_adapter(std::move(options), clock);
  std::unique_ptr<azure::AzureClusterAdapter> arm_adapter;
  runtime::ClusterAdapter* adapter = &k8s_adapter;
  if (use_arm) {
    auto az = AzureOptionsFrom(args);
    if (!az.ok()) return Fail("agent", az.status().message());
    arm_adapter = std::make_unique<azure::AzureClusterAdapter>(k8s_adapter, std::move(*az), clock, &metrics);
    adapter = arm_adapter.get();
  }
  ProgressLine progress;
  ropts.on_listening = ServingLine(ropts.http_host);
  ropts.on_progress = [&](const runtime::RuntimeStatus& s) { progress.Update(s); };
  ropts.stop_requested = StopRequested;
  runtime::Runtime runtime(*adapter, **engine, **st, clock, metrics, ropts);
  absl::Status s = runtime.Run();
  InstallStopHandler();  // the loop gave SIGINT/SIGTERM back to their defaults
  progress.Done();
  if (!s.ok()) return Fail("agent", s.message());
  const auto& status = runtime.status();
  std::printf("agent on %s%s, store %s\n", rest->Describe().c_str(), use_arm ? " with ARM" : "", dir.c_str());
  std::printf("  events %llu, actions %llu emitted, %llu dispatched, last seq %llu\n",
              static_cast<unsigned long long>(status.events), static_cast<unsigned long long>(status.actions),
              static_cast<unsigned long long>(status.dispatched),
              static_cast<unsigned long long>((*st)->LastSeq()));
  if (*monitor) std::printf("  %s\n", (*monitor)->Summary().c_str());
  return 0;
}

// The in-process sim's run options: the scenario's options, its inventory,
// then --set; an exit code when the scenario's own options are wrong.
std::optional<int> SimRunOptions(const Args& args, const sim::Scenario& scenario,
                                 const std::vector<std::pair<std::string, std::string>>& sets,
                                 sim::RunOptions* run) {
  run->options = scenario.options;
  auto set_option = [&](const std::string& key, const std::string& value) {
    for (auto& kv : run->options) {
      if (kv.first == key) {
        kv.second = value;
        return;
      }
    }
    run->options.emplace_back(key, value);
  };
  if (!scenario.samples_inventory.empty()) set_option("samples.inventory", scenario.samples_inventory);
  if (auto s = ValidateOptions(run->options, recon::StrCat(*args.Get("scenario"), ": option")); !s.ok())
    return Fail("agent", s.message());
  for (const auto& [key, value] : sets) set_option(key, value);
  run->load_directory = [](const std::string& dir) { return LoadDirectory(dir); };
  return std::nullopt;
}

// The sim agent's runtime flags (--speed into `speed`: "max" or a factor);
// an exit code when one is wrong (printed).
std::optional<int> SimRuntimeOptions(const Args& args, const sim::RunOptions& run,
                                     runtime::RuntimeOptions* options, std::string* speed) {
  options->until_converged = args.Has("until-converged");
  // Converged as `recon sim` says it (adapters/sim/runner.h): one dispatch path.
  options->quiet_bursts = run.quiet_bursts;
  if (auto max = args.Get("max-time")) {
    auto d = engine::ParseDurationNs(*max);
    if (!d.ok())
      return UsageError("agent", recon::StrCat("--max-time ", *max, ": ", Sv(d.status().message())));
    options->max_time_ns = *d;
  }
  if (auto port = args.Get("port")) {
    auto p = args.GetUint("port", 0);
    if (!p.ok() || *p > 65535)
      return UsageError("agent", recon::StrCat("--port ", *port, ": expected a port number"));
    options->http_port = static_cast<int>(*p);
  }
  if (auto host = args.Get("host")) {
    if (host->empty()) return UsageError("agent", "--host: expected an address such as 127.0.0.1 or 0.0.0.0");
    options->http_host = *host;
  }
  // Checked before the store is opened (a refused start creates no store).
  *speed = args.GetOr("speed", "max");
  if (*speed != "max") {
    char* end = nullptr;
    double x = std::strtod(speed->c_str(), &end);
    if (end == speed->c_str() || *end != '\0' || !(x > 0))
      return UsageError("agent", recon::StrCat("--speed ", *speed, ": expected a positive number or max"));
    options->speed = x;
  }
  return std::nullopt;
}

// After a sim run: the final conditions of the objects the scenario names,
// as last observed, and the action counters.
void PrintSimReport(const sim::Scenario& scenario, const engine::Engine& engine,
                    const runtime::Metrics& metrics) {
  for (const auto& ref : scenario.report) {
    engine.world().ForEachObject([&](const engine::Object& o) {
      if (o.kind() != ref.kind || o.name() != ref.name || o.ns() != ref.ns) return;
      std::printf("  %s %s%s:\n", ref.kind.c_str(), ref.ns.empty() ? "" : (ref.ns + "/").c_str(),
                  ref.name.c_str());
      const engine::Json& conds = engine::Path(o.json(), {"status", "conditions"});
      if (!conds.is_array()) return;
      for (const auto& c : conds) {
        std::string reason = engine::GetString(c, {"reason"});
        std::printf("    %-24s %-7s %s\n", engine::GetString(c, {"type"}).c_str(),
                    engine::GetString(c, {"status"}).c_str(), reason.c_str());
      }
    });
  }
  std::string text = metrics.Render();
  for (const char* family : {"recon_actions_total{"}) {
    for (size_t pos = text.find(family); pos != std::string::npos; pos = text.find(family, pos + 1)) {
      std::printf("  %s\n", text.substr(pos, text.find('\n', pos) - pos).c_str());
    }
  }
}

}  // namespace

int RunAgent(int argc, char** argv) {
#if defined(__GLIBC__)
  // A long-running process: RocksDB's memtables come and go in 2 MiB arena
  // blocks (a flush frees a whole memtable). glibc's sliding mmap threshold
  // rises past that size after the first such free, and the blocks then
  // land inside the heap, where the holes they leave keep RSS creeping up
  // while the heap in use stays flat (the soak's rss.tsv). A fixed
  // threshold keeps them mmapped, so a flush gives them back to the OS.
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
  // From the very start: a SIGINT/SIGTERM while inputs load or the store
  // opens is a request to stop (exit 0), not a kill.
  InstallStopHandler();
  // Logs go to stderr; stdout carries the summary.
  spdlog::set_default_logger(spdlog::stderr_color_mt("recon"));
  auto args = Args::Parse(argc, argv, {"cluster",       "scenario",
                                       "store",         "durability",
                                       "max-time",      "speed",
                                       "port",          "host",
                                       "set",           "domains",
                                       "kubeconfig",    "context",
                                       "namespace",     "lease-name",
                                       "identity",      "qps",
                                       "burst",         "fact",
                                       "probe-via",     "watch-timeout",
                                       "queue-qps",     "queue-burst",
                                       "catalog",       "catalog-poll",
                                       "crds",          "azure-credentials",
                                       "arm-endpoint",  "aad-endpoint",
                                       "shadow-window", "shadow-manager",
                                       "field-manager", "audit-log",
                                       "audit-user"},
                          {"until-converged", "no-leader-election", "no-validate", "azure", "shadow"});
  if (!args.ok()) return UsageError("agent", args.status().message());
  if (args->Has("help")) {
    std::printf(kUsage, kShadowFlagsHelp);
    return 0;
  }
  if (!args->Has("cluster") || !args->positionals().empty()) {
    std::fprintf(stderr, kUsage, kShadowFlagsHelp);
    return 2;
  }
  // The shadow flags too: ShadowSetup runs once the store is open.
  if (auto s = ValidateShadowFlags(*args); !s.ok()) return UsageError("agent", s.message());
  // Domain options are checked by the domains' own parsers before anything
  // opens the store: a bad value recorded in the log would fail every start.
  auto sets = SplitSets(args->GetAll("set"));
  if (!sets.ok()) return UsageError("agent", sets.status().message());
  if (auto s = ValidateOptions(*sets); !s.ok()) return UsageError("agent", s.message());
  if (auto d = args->Get("durability"); d && *d != "sync" && *d != "nosync")
    return UsageError("agent", recon::StrCat("--durability ", *d, ": expected sync or nosync"));
  if (*args->Get("cluster") != "sim") return RunLiveAgent(*args);
  if (!args->Has("scenario")) return UsageError("agent", "--cluster sim needs --scenario FILE");
  // The in-process sim takes writes without HTTP: nobody records a manager.
  if (args->Has("field-manager"))
    return UsageError("agent",
                      "--field-manager is for a live cluster (the in-process sim has no field managers)");
  auto scenario = sim::LoadScenario(*args->Get("scenario"));
  if (!scenario.ok()) return Fail("agent", scenario.status().message());
  auto facts = ParseFacts(args->GetAll("fact"));
  if (!facts.ok()) return UsageError("agent", facts.status().message());
  for (auto it = facts->begin(); it != facts->end(); ++it) scenario->facts[it.key()] = it.value();

  sim::RunOptions run;
  if (auto code = SimRunOptions(*args, *scenario, *sets, &run)) return *code;
  runtime::RuntimeOptions options;
  std::string speed;
  if (auto code = SimRuntimeOptions(*args, run, &options, &speed)) return *code;

  auto api = SimApiOptions(*args);
  if (!api.ok()) return Fail("agent", api.status().message());
  auto engine = MakeEngine(args->GetOr("domains", ""), {});
  if (!engine.ok()) return UsageError("agent", engine.status().message());
  std::string dir = args->GetOr("store", "./data/store");
  auto st = OpenStoreAt(dir, StoreAccess::kCreate, args->GetOr("durability", "sync"), StoreFlagsFrom(*args));
  if (!st.ok()) return Fail("agent", st.status().message());
  auto redactor = RedactorFor(dir, **st);
  if (!redactor.ok()) return Fail("agent", redactor.status().message());
  options.redactor = std::make_shared<const runtime::Redactor>(std::move(*redactor));

  sim::Simulator simulator(*scenario, std::move(*api));
  sim::SimClusterAdapter adapter(*scenario, simulator, **engine, run);
  // The simulated cluster's clock is the time source: with --speed max idle
  // waits jump it forward; otherwise it advances with real time, scaled.
  runtime::ManualTimeSource clock(simulator.now());
  if (speed == "max") options.fast_forward = [&clock](int64_t next) { clock.Set(next); };
  runtime::RealTimeSource real;
  int64_t real_start = real.NowNs(), sim_start = simulator.now();
  ProgressLine progress;
  options.on_progress = [&](const runtime::RuntimeStatus& s) {
    if (speed != "max")
      clock.Set(sim_start + static_cast<int64_t>((real.NowNs() - real_start) * options.speed));
    progress.Update(s);
  };
  runtime::Metrics metrics;
  auto monitor = ShadowSetup(*args, **engine, metrics, &options);
  if (!monitor.ok()) return UsageError("agent", monitor.status().message());
  options.stop_requested = StopRequested;
  options.on_listening = ServingLine(options.http_host);
  runtime::Runtime runtime(adapter, **engine, **st, clock, metrics, options);
  absl::Status s = runtime.Run();
  InstallStopHandler();  // the loop gave SIGINT/SIGTERM back to their defaults
  progress.Done();
  if (!s.ok()) return Fail("agent", s.message());
  const auto& status = runtime.status();
  std::printf("agent on the simulated cluster (%s), store %s\n", scenario->name.c_str(), dir.c_str());
  std::printf("  %s after %s of cluster time\n", status.converged ? "converged" : "stopped",
              sim::FormatDuration(status.now_ns - sim_start).c_str());
  std::printf("  events %llu, actions %llu emitted, %llu dispatched, last seq %llu\n",
              static_cast<unsigned long long>(status.events), static_cast<unsigned long long>(status.actions),
              static_cast<unsigned long long>(status.dispatched),
              static_cast<unsigned long long>((*st)->LastSeq()));
  if (!status.last_condition.empty())
    std::printf("  last condition change: %s\n", status.last_condition.c_str());
  if (*monitor) std::printf("  %s\n", (*monitor)->Summary().c_str());
  PrintSimReport(*scenario, **engine, metrics);
  std::printf("  replay it: recon replay --check --store %s   explain it: recon explain --store %s\n",
              dir.c_str(), dir.c_str());
  return options.until_converged && !status.converged ? 1 : 0;
}

}  // namespace recon::cli
