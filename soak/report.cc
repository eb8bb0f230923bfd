#include "soak/report.h"

#include <cstdio>
#include <string>

#include "base/strings.h"

namespace recon::soak {
namespace {

using engine::Json;

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

Json SoakReportJson(const SoakOptions& o, const SoakReport& r) {
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
  return j;
}

void PrintSoakReport(const SoakOptions& o, const SoakReport& r) {
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

}  // namespace recon::soak
