// recon soak: the fault-injection soak (soak/soak.h) with its report, as
// text or one JSON object (--json). Exit 0 when every check passed.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/strings.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/domains.h"
#include "cli/io.h"
#include "cli/store_open.h"
#include "engine/json.h"
#include "engine/time_format.h"
#include "soak/report.h"
#include "soak/soak.h"

namespace recon::cli {
namespace {

using soak::SoakOptions;

constexpr char kUsage[] =
    "usage: recon soak [options]\n"
    "Runs `recon agent` (a child process) against the simulated cluster served over the\n"
    "Kubernetes API, under a seeded workload of DisconnectedFriendlyApp instances (and the\n"
    "samples Config with --samples-inventory), first fault-free, then with faults: 409/429/500\n"
    "answers, dropped and delayed watch events, cut watches and compactions, the API unavailable\n"
    "for minutes of cluster time, the agent SIGKILLed and restarted on the same store. Checks:\n"
    "same final state as the fault-free run, no action applied twice, the log matches the\n"
    "cluster, replay --check passes, RSS growth < 5% over the final agent's second half. Exit 0\n"
    "when all hold. Creates refused AlreadyExists (a view the faults made late; nothing applied)\n"
    "are counted and listed, not failed.\n"
    "  --dir DIR              work directory (default ./soak); one subdirectory per run\n"
    "  --store etcd://HOST:PORT[,...]/PREFIX\n"
    "                         the agent's log on etcd, each run under PREFIX/<run> (emptied\n"
    "                         first; --etcd-* flags as for every --store); default: a RocksDB\n"
    "                         directory in each run's subdirectory\n"
    "  --events N             size the workload for about N logged events (default 20000, a run\n"
    "                         of minutes; the long run is --events 1000000, hours); the\n"
    "                         estimate knows the disconnected workload only (with 200 instances and\n"
    "                         every domain, 22 to 79 events per edit were measured, by --rate)\n"
    "  --edits N              or give the number of user edits directly\n"
    "  --instances N          DisconnectedFriendlyApps (default 200)\n"
    "  --samples-inventory D  also run the samples domain with this inventory: its Config's\n"
    "                         management state flipped, skip lists and registry override edited\n"
    "  --samples-every N      a samples management flip and two spec edits every N edits (default 100)\n"
    "  --olm-catalog DIR      also run the olm domain on this real FBC catalog (e.g.\n"
    "                         datasets/olm/community-derived): subscriptions created in several\n"
    "                         namespaces, switched to another channel, deleted and created again; an\n"
    "                         older copy of the catalog served first, the real one from 40% of the run\n"
    "                         on, as soon as no install or upgrade is on its way. The agent is both\n"
    "                         of OLM's operators (olm.executePlans, olm.csvLifecycle); the cluster\n"
    "                         plays only Kubernetes' part (unpack Jobs, CRDs, Deployments, GC), and\n"
    "                         each namespace's OperatorGroup targets itself\n"
    "  --olm-packages N       packages subscribed to (default 8)\n"
    "  --olm-every N          one subscription edit every N edits (default 4)\n"
    "  --olm-namespaces N     namespaces with subscriptions, the last one Manual (default 3)\n"
    "  --aro                  also run the aro domain: an ARO cluster's subnets, NSG and machines;\n"
    "                         the NSG detached from a subnet, a service endpoint dropped, the worker\n"
    "                         MachineSet scaled, outside the operator\n"
    "  --aro-every N          one aro edit every N edits (default 10)\n"
    "  --aro-arm              with --aro: the subnets and NSG through the simulated ARM and AAD\n"
    "                         (the agent runs with --azure, polling every 2s), the service principal's\n"
    "                         secret rotated at half the edits; the faulty run adds ARM faults: 429\n"
    "                         with Retry-After, 412 on stale etags, slow operations, revoked tokens,\n"
    "                         ARM down, AAD refusing the old secret before the Secret has the new one.\n"
    "                         Also checks the log's etags and that no secret or token leaks\n"
    "  --arm-faults N         ARM fault episodes in the faulty run (default 5)\n"
    "  --quiet                no progress line on stderr (shown only on a terminal)\n"
    "  --domains a,b          the agent's domains (default: disconnected, + samples with an\n"
    "                         inventory, + olm with a catalog)\n"
    "  --seed N               workload and fault seed (default 1)\n"
    "  --rate X               user edits per real second (default 10)\n"
    "  --speed X              cluster seconds per real second (default 60)\n"
    "  --kills N --outages N  agent SIGKILLs (default 4), API outages (default 2; the workload\n"
    "                         waits each out, and as long again: the user's writes fail too)\n"
    "  --outage D             longest outage in cluster time (default 3m; shortest: a third)\n"
    "  --write-faults F       fraction of writes answered 409/429/500 (default 0.06)\n"
    "  --no-baseline          skip the fault-free run (and the state comparison)\n"
    "  --recon PATH           the agent binary (default: this one)\n"
    "  --json                 print the report as one JSON object\n";

// A numeric flag in [lo, hi], `fallback` when absent; false (and a message)
// when it is not a number in range.
bool Number(const Args& args, const char* flag, double fallback, double lo, double hi, double* out) {
  auto v = args.Get(flag);
  if (!v) {
    *out = fallback;
    return true;
  }
  char* end = nullptr;
  double d = std::strtod(v->c_str(), &end);
  if (end == v->c_str() || *end != '\0' || !(d >= lo && d <= hi)) {
    Fail("soak", recon::StrCat("--", flag, " ", *v, ": expected a number in [", lo, ", ", hi, "]"));
    return false;
  }
  *out = d;
  return true;
}

// Short by default: a soak nobody sized should end in minutes, not hours.
constexpr double kDefaultEvents = 20000;

struct Numbers {
  double events, edits, instances, seed, rate, speed, kills, outages, write_faults, samples_every,
      olm_packages, olm_every, olm_namespaces, aro_every, arm_faults;
};

bool ParseNumbers(const Args& a, Numbers* n) {
  return Number(a, "events", kDefaultEvents, 100, 1e9, &n->events) && Number(a, "edits", 0, 0, 1e7, &n->edits) &&
         Number(a, "instances", 200, 1, 100000, &n->instances) && Number(a, "seed", 1, 0, 1e15, &n->seed) &&
         Number(a, "rate", 10, 0.01, 10000, &n->rate) && Number(a, "speed", 60, 0.01, 100000, &n->speed) &&
         Number(a, "kills", 4, 0, 1000, &n->kills) && Number(a, "outages", 2, 0, 1000, &n->outages) &&
         Number(a, "write-faults", 0.06, 0, 0.9, &n->write_faults) &&
         Number(a, "samples-every", 100, 1, 1e7, &n->samples_every) &&
         Number(a, "olm-packages", 8, 1, 1000, &n->olm_packages) &&
         Number(a, "olm-every", 4, 1, 1e7, &n->olm_every) &&
         Number(a, "olm-namespaces", 3, 1, 1000, &n->olm_namespaces) &&
         Number(a, "aro-every", 10, 1, 1e7, &n->aro_every) &&
         Number(a, "arm-faults", 5, 0, 1000, &n->arm_faults);
}

// The domains' flags (--samples-inventory, --olm-*, --aro*) into `o`; an
// exit code when they do not fit together (printed).
std::optional<int> DomainFlags(const Args& args, const Numbers& n, SoakOptions* o) {
  o->workload.samples_inventory = args.GetOr("samples-inventory", "");
  o->workload.samples_every = static_cast<int>(n.samples_every);
  if (auto st = soak::LoadSoakSamplesNames(&o->workload, LoadDirectory); !st.ok())
    return Fail("soak",
                recon::StrCat("--samples-inventory ", o->workload.samples_inventory, ": ", st.message()));
  o->domains = args.GetOr("domains", "");
  const bool olm_domain = o->domains.empty() || ("," + o->domains + ",").find(",olm,") != std::string::npos;
  if (auto cat = args.Get("olm-catalog")) {
    if (!olm_domain) return Fail("soak", "--olm-catalog needs the olm domain in --domains");
    auto olm = soak::LoadSoakOlm(*cat, LoadDirectory, static_cast<int>(n.olm_packages), o->workload.seed);
    if (!olm.ok()) return Fail("soak", recon::StrCat("--olm-catalog ", *cat, ": ", olm.status().message()));
    o->olm = *olm;
    o->workload.olm_packages = o->olm->packages;
    o->workload.olm_every = static_cast<int>(n.olm_every);
    o->workload.olm_namespaces = static_cast<int>(n.olm_namespaces);
  } else if (!o->domains.empty() && olm_domain) {
    return Fail("soak", "the olm domain needs --olm-catalog DIR");
  }
  const bool aro_domain = o->domains.empty() || ("," + o->domains + ",").find(",aro,") != std::string::npos;
  if (args.Has("aro")) {
    if (!aro_domain) return Fail("soak", "--aro needs the aro domain in --domains");
    o->workload.aro = true;
    o->workload.aro_every = static_cast<int>(n.aro_every);
  } else if (!o->domains.empty() && aro_domain) {
    return Fail("soak", "the aro domain needs --aro (its cluster's objects)");
  } else if (args.Has("aro-every")) {
    return Fail("soak", "--aro-every needs --aro");
  }
  if (args.Has("aro-arm") || args.Has("arm-faults")) {
    if (!args.Has("aro")) return Fail("soak", "--aro-arm and --arm-faults need --aro");
    if (args.Has("arm-faults") && !args.Has("aro-arm")) return Fail("soak", "--arm-faults needs --aro-arm");
    o->workload.aro_arm = true;
    o->arm_faults = static_cast<int>(n.arm_faults);
  }
  return std::nullopt;
}

// Every flag into `o`; an exit code when one is wrong (printed).
std::optional<int> SoakFlags(const Args& args, SoakOptions* o) {
  o->dir = args.GetOr("dir", "soak");
  o->baseline = !args.Has("no-baseline");
  if (auto r = args.Get("recon")) {
    o->recon_binary = *r;
  } else {
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (len <= 0) return Fail("soak", "cannot find this binary (/proc/self/exe); pass --recon PATH");
    o->recon_binary.assign(self, static_cast<size_t>(len));
  }
  Numbers n;
  if (!ParseNumbers(args, &n)) return 2;
  o->workload.instances = static_cast<int>(n.instances);
  o->workload.seed = static_cast<uint64_t>(n.seed);
  if (auto code = DomainFlags(args, n, o)) return code;
  o->workload.spacing_ns = static_cast<int64_t>(n.speed / n.rate * 1e9);
  o->workload.edits =
      n.edits > 0 ? static_cast<int>(n.edits)
                  : std::max(10, static_cast<int>(n.events / soak::EstimatedEventsPerEdit(o->workload)));
  o->speed = n.speed;
  o->kills = static_cast<int>(n.kills);
  o->outages = static_cast<int>(n.outages);
  o->write_faults = n.write_faults;
  if (auto d = args.Get("outage")) {
    auto ns = engine::ParseDurationNs(*d);
    if (!ns.ok() || *ns <= 0)
      return Fail("soak", recon::StrCat("--outage ", *d, ": expected a duration like 3m"));
    o->outage_max_ns = *ns;
    o->outage_min_ns = *ns / 3;
  }
  o->domain_resources = DomainResourcesOf;
  return std::nullopt;
}

}  // namespace

int RunSoak(int argc, char** argv) {
  int code = 0;
  auto args = ParseCommand(
      "soak", kUsage, argc, argv,
      {"dir",          "events",    "edits",       "instances",    "samples-inventory", "samples-every",
       "seed",         "rate",      "speed",       "kills",        "outages",           "outage",
       "write-faults", "recon",     "olm-catalog", "olm-packages", "olm-every",         "olm-namespaces",
       "domains",      "aro-every", "arm-faults",  "store"},
      {"no-baseline", "json", "aro", "aro-arm", "quiet"}, &code);
  if (!args) return code;
  if (!args->positionals().empty()) return UsageMismatch(kUsage);
  SoakOptions o;
  if (auto code = SoakFlags(*args, &o)) return *code;
  if (args->Has("store")) {
    o.store = *args->Get("store");
    if (!IsEtcdStore(o.store))
      return UsageError("soak", "--store: give etcd://HOST:PORT[,...]/PREFIX (without it, each run's log is a "
                                "RocksDB directory under --dir)");
    const StoreFlags flags = StoreFlagsFrom(*args);
    // Every child that names the store gets the same flags (never the password itself).
    for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
             {"--etcd-cacert", flags.cacert},
             {"--etcd-cert", flags.cert},
             {"--etcd-key", flags.key},
             {"--etcd-user", flags.user},
             {"--etcd-password-file", flags.password_file},
             {"--etcd-quota-bytes", flags.quota_bytes}}) {
      if (value.empty()) continue;
      o.store_args.push_back(flag);
      o.store_args.push_back(value);
    }
    // Reached before anything runs: a bad URL or credentials stop the soak here.
    if (auto target = ConnectEtcd(o.store, flags); !target.ok()) return Fail("soak", target.status().message());
    o.open_store = [flags](const std::string& where) {
      return OpenStoreAt(where, StoreAccess::kRead, "sync", flags);
    };
    o.clear_store = [flags](const std::string& where) -> absl::Status {
      auto target = ConnectEtcd(where, flags);
      if (!target.ok()) return target.status();
      const std::string dir = target->prefix + "/";
      auto r = target->kv->Txn({}, {store::TxnOp::Delete(dir, store::KeyRange::PrefixEnd(dir))});
      return r.ok() ? absl::OkStatus() : r.status();
    };
  }
  if (!args->Has("events") && !args->Has("edits"))
    std::fprintf(stderr,
                 "recon soak: a short run (about %.0f events, the default); the long one: --events 1000000\n",
                 kDefaultEvents);
  // On a terminal: which leg, how far through its workload, or settling.
  const bool tty = !args->Has("quiet") && isatty(STDERR_FILENO);
  if (tty) {
    o.progress = [last = std::string()](const std::string& leg, double done, bool settling) mutable {
      std::string line = settling ? recon::StrCat("soak ", leg, ": workload done, waiting for the agent to settle")
                                  : recon::StrCat("soak ", leg, ": ", static_cast<int>(done * 100),
                                                  "% of the workload");
      if (line == last) return;
      last = line;
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
    };
  }
  auto report = soak::RunSoak(o);
  if (tty) std::fputs("\r\033[K", stderr);
  if (!report.ok()) return Fail("soak", report.status().message());
  if (args->Has("json")) {
    std::printf("%s\n", engine::Dump(soak::SoakReportJson(o, *report)).c_str());
  } else {
    soak::PrintSoakReport(o, *report);
  }
  return report->failures.empty() ? 0 : 1;
}

}  // namespace recon::cli
