#include "cli/shadow_monitor.h"

#include "base/strings.h"
#include "cli/domains.h"
#include "cli/shadow_options.h"
#include "spdlog/spdlog.h"

namespace recon::cli {

ShadowMonitor::ShadowMonitor(shadow::Options options, runtime::Metrics& metrics)
    : options_(options), comparator_(std::move(options)), metrics_(metrics) {
  metrics_.Declare("recon_shadow_predictions_total", "counter",
                   "Shadow mode: the domains' writes (never sent) as decided against what the cluster then "
                   "showed, by domain and result (match, differs, missed, superseded).");
  metrics_.Declare(
      "recon_shadow_unpredicted_total", "counter",
      "Shadow mode: writes by the shadowed operator's field managers that no prediction covered, "
      "by domain.");
}

void ShadowMonitor::FollowAudit(std::unique_ptr<AuditLogTail> tail, shadow::AuditOptions audit) {
  tail_ = std::move(tail);
  judge_.emplace(options_, std::move(audit));
  metrics_.Declare("recon_shadow_audit_findings", "gauge",
                   "Shadow mode judged on the API server's audit log (--audit-log): the predictions and "
                   "the operator's unpredicted writes by domain and result, recomputed as the log grows.");
  metrics_.Declare("recon_shadow_audit_writes", "gauge", "Writes read from the --audit-log file so far.");
  metrics_.Declare("recon_shadow_audit_errors_total", "counter",
                   "Reads of the --audit-log file that failed (a malformed line; logged with its line).");
}

void ShadowMonitor::PollAudit(int64_t now_ns, bool force) {
  if (!tail_) return;
  constexpr int64_t kSecond = 1'000'000'000;
  if (force || now_ns - last_read_ns_ >= kSecond) {
    last_read_ns_ = now_ns;
    auto writes = tail_->ReadNew();
    if (!writes.ok()) {
      metrics_.Add("recon_shadow_audit_errors_total", {});
      spdlog::warn("shadow --audit-log: {}", std::string(writes.status().message()));
    } else if (!writes->empty()) {
      judge_->AddWrites(std::move(*writes));
      metrics_.Set("recon_shadow_audit_writes", {}, static_cast<double>(judge_->writes()));
      unjudged_ = true;
    }
  }
  // Judged again on new writes, at most every 5 s of event time: each
  // judgement looks at every prediction so far.
  if (!force && (!unjudged_ || now_ns - last_judged_ns_ < 5 * kSecond)) return;
  last_judged_ns_ = now_ns;
  unjudged_ = false;
  shadow::Report report;
  report.findings = judge_->Judge();
  audit_counts_ = report.Counts();
  for (const auto& [domain, counts] : audit_counts_)
    for (const auto& [result, n] : counts)
      metrics_.Set("recon_shadow_audit_findings", {{"domain", domain}, {"result", result}},
                   static_cast<double>(n));
}

void ShadowMonitor::Observe(const engine::Event& event, std::span<const records::ActionRecord> actions,
                            const engine::World& world) {
  if (judge_) judge_->Observe(event, actions);
  PollAudit(event.time_ns, false);
  comparator_.Observe(event, actions, &world);
  for (const auto& f : comparator_.TakeDecided()) {
    std::string result(shadow::ResultName(f.result));
    ++totals_[result];
    std::string subject =
        recon::StrCat(f.object.kind, " ", f.object.ns.empty() ? "" : f.object.ns + "/", f.object.name);
    if (f.result == shadow::Result::kUnpredicted) {
      metrics_.Add("recon_shadow_unpredicted_total", {{"domain", f.domain}});
      spdlog::info("shadow {}: unpredicted {} {} by {} (seq {})", f.domain, f.verb, subject, f.manager,
                   f.cause);
      continue;
    }
    metrics_.Add("recon_shadow_predictions_total", {{"domain", f.domain}, {"result", result}});
    if (f.result == shadow::Result::kMatch) continue;
    std::string where;
    for (const auto& d : f.diffs) recon::StrAppend(&where, where.empty() ? ": " : "; ", d.path);
    spdlog::info("shadow {}: {} {} {} (action {}){}", f.domain, result, f.verb, subject, f.action, where);
  }
}

std::string ShadowMonitor::Summary() {
  auto n = [this](const char* r) {
    auto it = totals_.find(r);
    return it == totals_.end() ? 0 : it->second;
  };
  uint64_t decided = n("match") + n("differs") + n("missed") + n("superseded");
  std::string superseded = n("superseded") == 0 ? "" : recon::StrCat(", ", n("superseded"), " superseded");
  std::string out =
      recon::StrCat("shadow: ", decided, " predictions decided (", n("match"), " match, ", n("differs"),
                    " differs, ", n("missed"), " missed", superseded, "), ", comparator_.Open().size(),
                    " pending; ", n("unpredicted"), " unpredicted writes");
  if (!tail_) return out;
  PollAudit(last_read_ns_, true);
  std::map<std::string, uint64_t> all;
  for (const auto& [domain, counts] : audit_counts_)
    for (const auto& [result, c] : counts) all[result] += c;
  recon::StrAppend(&out, "\n  shadow on the audit log (", judge_->writes(), " writes of ", tail_->path(),
                   "): ", all["match"], " match, ", all["differs"], " differs, ", all["missed"], " missed, ",
                   all["superseded"], " superseded, ", all["pending"], " pending; ", all["unpredicted"],
                   " unpredicted writes");
  return out;
}

absl::StatusOr<std::unique_ptr<ShadowMonitor>> ShadowSetup(const Args& args, const engine::Engine& engine,
                                                           runtime::Metrics& metrics,
                                                           runtime::RuntimeOptions* options) {
  if (!args.Has("shadow")) return nullptr;
  auto parsed = ParseShadowOptions(args, engine);
  if (!parsed.ok()) return parsed.status();
  auto monitor = std::make_unique<ShadowMonitor>(*parsed, metrics);
  if (auto path = args.Get("audit-log")) {
    auto audit = ParseShadowAudit(args, engine, *parsed);
    if (!audit.ok()) return audit.status();
    monitor->FollowAudit(std::make_unique<AuditLogTail>(*path, engine), std::move(*audit));
  }
  options->shadow = true;
  options->on_reduced = [m = monitor.get(), &engine](const engine::Event& e,
                                                     std::span<const records::ActionRecord> actions) {
    m->Observe(e, actions, engine.world());
  };
  return monitor;
}

absl::Status ValidateShadowFlags(const Args& args) {
  if ((args.Has("shadow-window") || args.Has("shadow-manager") || args.Has("audit-log")) && !args.Has("shadow"))
    return absl::InvalidArgumentError("--shadow-window, --shadow-manager and --audit-log need --shadow");
  if (args.Has("audit-user") && !args.Has("audit-log"))
    return absl::InvalidArgumentError("--audit-user needs --audit-log");
  if (!args.Has("shadow")) return absl::OkStatus();
  auto engine = MakeEngine(args.GetOr("domains", ""), args.GetAll("set"));
  if (!engine.ok()) return engine.status();
  auto parsed = ParseShadowOptions(args, **engine);
  if (!parsed.ok()) return parsed.status();
  return ParseShadowAudit(args, **engine, *parsed).status();
}

}  // namespace recon::cli
