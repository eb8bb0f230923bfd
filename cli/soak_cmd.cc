// recon soak: the fault-injection soak (soak/soak.h) with its report, as
// text or one JSON object (--json). Exit 0 when every check passed.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "base/strings.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/domains.h"
#include "cli/io.h"
#include "engine/json.h"
#include "engine/time_format.h"
#include "soak/soak.h"

namespace recon::cli {
namespace {

using engine::Json;
using soak::SoakLeg;
using soak::SoakOptions;
using soak::SoakReport;

constexpr char kUsage[] =
    "usage: recon soak [options]\n"
    "Runs `recon agent` (a child process) against the simulated cluster served over the\n"
    "Kubernetes API, under a seeded workload of DisconnectedFriendlyApp instances (and the\n"
    "samples Config with --samples-inventory), first fault-free, then with faults: 409/429/500\n"
    "answers, dropped and delayed watch events, cut watches and compactions, the API unavailable\n"
    "for minutes of cluster time, the agent SIGKILLed and restarted on the same store. Checks:\n"
    "same final state as the fault-free run, no action applied twice, no create of an existing\n"
    "object, the log matches the cluster, replay --check passes, RSS growth < 5% over the final\n"
    "agent's second half. Exit 0 when all hold.\n"
    "  --dir DIR              work directory (default ./soak); one subdirectory per run\n"
    "  --events N             size the workload for about N logged events (default 1000000)\n"
    "  --edits N              or give the number of user edits directly\n"
    "  --instances N          DisconnectedFriendlyApps (default 200)\n"
    "  --samples-inventory D  also run the samples domain with this inventory: its Config's\n"
    "                         management state flipped, skip lists and registry override edited\n"
    "  --samples-every N      a samples management flip and two spec edits every N edits (default 100)\n"
    "  --olm-catalog DIR      also run the olm domain on this real FBC catalog (e.g.\n"
    "                         ../shared/data/olm/community-derived): subscriptions created in several\n"
    "                         namespaces, switched to another channel, deleted and created again; an\n"
    "                         older copy of the catalog served first, the real one from 40% of the run\n"
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
    "  --domains a,b          the agent's domains (default: disconnected, + samples with an\n"
    "                         inventory, + olm with a catalog)\n"
    "  --seed N               workload and fault seed (default 1)\n"
    "  --rate X               user edits per real second (default 10)\n"
    "  --speed X              cluster seconds per real second (default 60)\n"
    "  --kills N --outages N  agent SIGKILLs (default 4), API outages (default 2)\n"
    "  --outage D             longest outage in cluster time (default 3m; shortest: a third)\n"
    "  --write-faults F       fraction of writes answered 409/429/500 (default 0.06)\n"
    "  --no-baseline          skip the fault-free run (and the state comparison)\n"
    "  --recon PATH           the agent binary (default: this one)\n"
    "  --json                 print the report as one JSON object\n";

Json LegJson(const SoakLeg& l) {
  Json j = {{"seconds", l.seconds},
            {"converged", l.converged},
            {"events", l.events},
            {"events_per_s", l.seconds > 0 ? static_cast<double>(l.events) / l.seconds : 0},
            {"kills", l.kills},
            {"agent_exit", l.agent_exit},
            {"replay_check_exit", l.replay_check_exit},
            {"requests", l.server.requests},
            {"writes_applied", l.server.writes_applied},
            {"edits_applied", l.server.edits_applied},
            {"edits_failed", l.server.edits_failed},
            {"injected_failures", l.server.injected},
            {"unavailable_answers", l.server.unavailable},
            {"outages", l.server.outages},
            {"watch_events", l.server.watch_events},
            {"watch_streams_cut", l.server.watch_dropped},
            {"watch_events_delayed", l.server.watch_delayed},
            {"actions_applied_twice", l.server.actions_applied_twice},
            {"creates_refused_already_exists", l.server.already_exists},
            {"log_mismatches", l.log_mismatches},
            {"rss_mid_mb", static_cast<double>(l.rss_mid_kb) / 1024},
            {"rss_end_mb", static_cast<double>(l.rss_end_kb) / 1024},
            {"rss_max_mb", static_cast<double>(l.rss_max_kb) / 1024},
            {"rss_growth_second_half", l.rss_growth},
            {"store_memory_mid_mb", static_cast<double>(l.store_mid_kb) / 1024},
            {"store_memory_end_mb", static_cast<double>(l.store_end_kb) / 1024},
            {"heap_in_use_mid_mb", static_cast<double>(l.heap_mid_kb) / 1024},
            {"heap_in_use_end_mb", static_cast<double>(l.heap_end_kb) / 1024},
            {"objects", l.final_state.size()}};
  if (l.arm) {
    j["arm"] = {{"requests", l.arm_stats.requests},
                {"gets", l.arm_stats.gets},
                {"unchanged_reads", l.arm_stats.unchanged_reads},
                {"puts", l.arm_stats.puts},
                {"operation_polls", l.arm_stats.operation_polls},
                {"slow_operations", l.arm_stats.slow_operations},
                {"token_requests", l.arm_stats.token_requests},
                {"tokens_refused", l.arm_stats.token_refused},
                {"throttled", l.arm_stats.throttled},
                {"precondition_failed", l.arm_stats.precondition_failed},
                {"unauthorized", l.arm_stats.unauthorized},
                {"unavailable", l.arm_stats.unavailable},
                {"faults", l.arm_faults},
                {"secret_leaks", l.secret_leaks}};
  }
  Json ex = Json::array();
  for (const auto& e : l.server.examples) ex.push_back(e);
  for (const auto& e : l.log_examples) ex.push_back(e);
  for (const auto& e : l.leak_examples) ex.push_back(e);
  j["examples"] = ex;
  return j;
}

void PrintLeg(const char* title, const SoakLeg& l) {
  std::printf("%s: %llu events in %.1f s (%.0f events/s), %s, %d kills\n", title,
              static_cast<unsigned long long>(l.events), l.seconds,
              l.seconds > 0 ? static_cast<double>(l.events) / l.seconds : 0.0,
              l.converged ? "converged" : "NOT converged", l.kills);
  std::printf(
      "  server: %llu requests, %llu writes applied, %llu injected failures, %llu answered 503 in %llu "
      "outages,\n"
      "          %llu watch events, %llu streams cut, %llu events delayed; edits %llu applied, %llu "
      "refused\n",
      static_cast<unsigned long long>(l.server.requests),
      static_cast<unsigned long long>(l.server.writes_applied),
      static_cast<unsigned long long>(l.server.injected),
      static_cast<unsigned long long>(l.server.unavailable),
      static_cast<unsigned long long>(l.server.outages),
      static_cast<unsigned long long>(l.server.watch_events),
      static_cast<unsigned long long>(l.server.watch_dropped),
      static_cast<unsigned long long>(l.server.watch_delayed),
      static_cast<unsigned long long>(l.server.edits_applied),
      static_cast<unsigned long long>(l.server.edits_failed));
  for (const auto& e : l.server.edit_failures) std::printf("  edit refused: %s\n", e.c_str());
  std::printf(
      "  actions applied twice %llu, creates refused AlreadyExists %llu, log vs cluster mismatches %llu\n",
      static_cast<unsigned long long>(l.server.actions_applied_twice),
      static_cast<unsigned long long>(l.server.already_exists),
      static_cast<unsigned long long>(l.log_mismatches));
  std::printf(
      "  agent exit %d, replay --check exit %d, RSS %.1f MB at mid, %.1f MB at end (%+.1f%%), max %.1f MB\n",
      l.agent_exit, l.replay_check_exit, static_cast<double>(l.rss_mid_kb) / 1024,
      static_cast<double>(l.rss_end_kb) / 1024, l.rss_growth * 100, static_cast<double>(l.rss_max_kb) / 1024);
  if (l.store_mid_kb >= 0 && l.store_end_kb >= 0) {
    std::printf(
        "  of which the event store (memtables, block cache, table readers): %.1f MB at mid, %.1f MB at "
        "end\n",
        static_cast<double>(l.store_mid_kb) / 1024, static_cast<double>(l.store_end_kb) / 1024);
  }
  if (l.heap_mid_kb >= 0 && l.heap_end_kb >= 0) {
    std::printf("  heap in use (malloc'd, not freed): %.1f MB at mid, %.1f MB at end\n",
                static_cast<double>(l.heap_mid_kb) / 1024, static_cast<double>(l.heap_end_kb) / 1024);
  }
  if (l.arm) {
    const sim::ArmStats& a = l.arm_stats;
    std::printf(
        "  ARM: %llu requests (%llu GETs, %llu of them unchanged; %llu PUTs, %llu slowed, %llu "
        "operation polls),\n"
        "       %d ARM faults: %llu answered 429, %llu 412, %llu 401, %llu 503; %llu token requests, %llu "
        "refused;\n"
        "       secrets or tokens leaked: %llu\n",
        static_cast<unsigned long long>(a.requests), static_cast<unsigned long long>(a.gets),
        static_cast<unsigned long long>(a.unchanged_reads), static_cast<unsigned long long>(a.puts),
        static_cast<unsigned long long>(a.slow_operations),
        static_cast<unsigned long long>(a.operation_polls), l.arm_faults,
        static_cast<unsigned long long>(a.throttled), static_cast<unsigned long long>(a.precondition_failed),
        static_cast<unsigned long long>(a.unauthorized), static_cast<unsigned long long>(a.unavailable),
        static_cast<unsigned long long>(a.token_requests), static_cast<unsigned long long>(a.token_refused),
        static_cast<unsigned long long>(l.secret_leaks));
  }
  for (const auto& e : l.server.examples) std::printf("  ! %s\n", e.c_str());
  for (const auto& e : l.log_examples) std::printf("  ! %s\n", e.c_str());
  for (const auto& e : l.leak_examples) std::printf("  ! %s\n", e.c_str());
}

}  // namespace

int RunSoak(int argc, char** argv) {
  auto args = Args::Parse(
      argc, argv,
      {"dir",          "events",    "edits",       "instances",    "samples-inventory", "samples-every",
       "seed",         "rate",      "speed",       "kills",        "outages",           "outage",
       "write-faults", "recon",     "olm-catalog", "olm-packages", "olm-every",         "olm-namespaces",
       "domains",      "aro-every", "arm-faults"},
      {"no-baseline", "json", "aro", "aro-arm"});
  if (!args.ok()) return UsageError("soak", args.status().message());
  if (args->Has("help")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (!args->positionals().empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  SoakOptions o;
  o.dir = args->GetOr("dir", "soak");
  o.baseline = !args->Has("no-baseline");
  if (auto r = args->Get("recon")) {
    o.recon_binary = *r;
  } else {
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) return Fail("soak", "cannot find this binary (/proc/self/exe); pass --recon PATH");
    o.recon_binary.assign(self, static_cast<size_t>(n));
  }
  auto num = [&](const char* flag, double fallback, double lo, double hi, double* out) {
    auto v = args->Get(flag);
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
  };
  double events, edits, instances, seed, rate, speed, kills, outages, write_faults, samples_every,
      olm_packages, olm_every, olm_namespaces, aro_every, arm_faults;
  if (!num("events", 1e6, 100, 1e9, &events) || !num("edits", 0, 0, 1e7, &edits) ||
      !num("instances", 200, 1, 100000, &instances) || !num("seed", 1, 0, 1e15, &seed) ||
      !num("rate", 10, 0.01, 10000, &rate) || !num("speed", 60, 0.01, 100000, &speed) ||
      !num("kills", 4, 0, 1000, &kills) || !num("outages", 2, 0, 1000, &outages) ||
      !num("write-faults", 0.06, 0, 0.9, &write_faults) ||
      !num("samples-every", 100, 1, 1e7, &samples_every) || !num("olm-packages", 8, 1, 1000, &olm_packages) ||
      !num("olm-every", 4, 1, 1e7, &olm_every) || !num("olm-namespaces", 3, 1, 1000, &olm_namespaces) ||
      !num("aro-every", 10, 1, 1e7, &aro_every) || !num("arm-faults", 5, 0, 1000, &arm_faults))
    return 2;
  o.workload.instances = static_cast<int>(instances);
  o.workload.seed = static_cast<uint64_t>(seed);
  o.workload.samples_inventory = args->GetOr("samples-inventory", "");
  o.workload.samples_every = static_cast<int>(samples_every);
  if (auto st = soak::LoadSoakSamplesNames(&o.workload, LoadDirectory); !st.ok())
    return Fail("soak",
                recon::StrCat("--samples-inventory ", o.workload.samples_inventory, ": ", st.message()));
  o.domains = args->GetOr("domains", "");
  const bool olm_domain = o.domains.empty() || ("," + o.domains + ",").find(",olm,") != std::string::npos;
  if (auto cat = args->Get("olm-catalog")) {
    if (!olm_domain) return Fail("soak", "--olm-catalog needs the olm domain in --domains");
    auto olm = soak::LoadSoakOlm(*cat, LoadDirectory, static_cast<int>(olm_packages), o.workload.seed);
    if (!olm.ok()) return Fail("soak", recon::StrCat("--olm-catalog ", *cat, ": ", olm.status().message()));
    o.olm = *olm;
    o.workload.olm_packages = o.olm->packages;
    o.workload.olm_every = static_cast<int>(olm_every);
    o.workload.olm_namespaces = static_cast<int>(olm_namespaces);
  } else if (!o.domains.empty() && olm_domain) {
    return Fail("soak", "the olm domain needs --olm-catalog DIR");
  }
  const bool aro_domain = o.domains.empty() || ("," + o.domains + ",").find(",aro,") != std::string::npos;
  if (args->Has("aro")) {
    if (!aro_domain) return Fail("soak", "--aro needs the aro domain in --domains");
    o.workload.aro = true;
    o.workload.aro_every = static_cast<int>(aro_every);
  } else if (!o.domains.empty() && aro_domain) {
    return Fail("soak", "the aro domain needs --aro (its cluster's objects)");
  } else if (args->Has("aro-every")) {
    return Fail("soak", "--aro-every needs --aro");
  }
  if (args->Has("aro-arm") || args->Has("arm-faults")) {
    if (!args->Has("aro")) return Fail("soak", "--aro-arm and --arm-faults need --aro");
    if (args->Has("arm-faults") && !args->Has("aro-arm")) return Fail("soak", "--arm-faults needs --aro-arm");
    o.workload.aro_arm = true;
    o.arm_faults = static_cast<int>(arm_faults);
  }
  o.workload.spacing_ns = static_cast<int64_t>(speed / rate * 1e9);
  o.workload.edits = edits > 0
                         ? static_cast<int>(edits)
                         : std::max(10, static_cast<int>(events / soak::EstimatedEventsPerEdit(o.workload)));
  o.speed = speed;
  o.kills = static_cast<int>(kills);
  o.outages = static_cast<int>(outages);
  o.write_faults = write_faults;
  if (auto d = args->Get("outage")) {
    auto ns = engine::ParseDurationNs(*d);
    if (!ns.ok() || *ns <= 0)
      return Fail("soak", recon::StrCat("--outage ", *d, ": expected a duration like 3m"));
    o.outage_max_ns = *ns;
    o.outage_min_ns = *ns / 3;
  }

  o.domain_resources = DomainResourcesOf;
  auto report = soak::RunSoak(o);
  if (!report.ok()) return Fail("soak", report.status().message());
  const SoakReport& r = *report;
  if (args->Has("json")) {
    Json j = {{"seed", o.workload.seed},
              {"edits", o.workload.edits},
              {"instances", o.workload.instances},
              {"faults", LegJson(r.faults)},
              {"state_differences", r.state_differences}};
    if (r.compared) j["baseline"] = LegJson(r.baseline);
    Json f = Json::array();
    for (const auto& s : r.failures) f.push_back(s);
    j["failures"] = f;
    j["passed"] = r.failures.empty();
    std::printf("%s\n", engine::Dump(j).c_str());
  } else {
    std::printf("soak: seed %llu, %d edits over %d instances, speed %g\n",
                static_cast<unsigned long long>(o.workload.seed), o.workload.edits, o.workload.instances,
                o.speed);
    if (o.olm) {
      std::string names, updated;
      for (const auto& p : o.olm->packages) recon::StrAppend(&names, names.empty() ? "" : ", ", p.name);
      for (const auto& p : o.olm->updated) recon::StrAppend(&updated, updated.empty() ? "" : ", ", p);
      std::printf("olm: %zu packages (%s) in %d namespaces; the catalog update brings the head of %s\n",
                  o.olm->packages.size(), names.c_str(), o.workload.olm_namespaces,
                  updated.empty() ? "none" : updated.c_str());
    }
    if (r.compared) PrintLeg("fault-free", r.baseline);
    PrintLeg("faults", r.faults);
    if (r.compared) {
      std::printf("final state: %llu objects differ from the fault-free run\n",
                  static_cast<unsigned long long>(r.state_differences));
      for (const auto& e : r.difference_examples) std::printf("  ! %s\n", e.c_str());
    }
    std::printf("%s\n", r.failures.empty() ? "PASSED" : "FAILED");
    for (const auto& s : r.failures) std::printf("  - %s\n", s.c_str());
  }
  return r.failures.empty() ? 0 : 1;
}

}  // namespace recon::cli
