#include "cli/shadow_monitor.h"

#include "base/strings.h"
#include "spdlog/spdlog.h"

namespace recon::cli {

ShadowMonitor::ShadowMonitor(shadow::Options options, runtime::Metrics& metrics)
    : comparator_(std::move(options)), metrics_(metrics) {
  metrics_.Declare("recon_shadow_predictions_total", "counter",
                   "Shadow mode: the domains' writes (never sent) as decided against what the cluster then "
                   "showed, by domain and result (match, differs, missed, superseded).");
  metrics_.Declare(
      "recon_shadow_unpredicted_total", "counter",
      "Shadow mode: writes by the shadowed operator's field managers that no prediction covered, "
      "by domain.");
}

void ShadowMonitor::Observe(const engine::Event& event, std::span<const engine::ActionRecord> actions,
                            const engine::World& world) {
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

std::string ShadowMonitor::Summary() const {
  auto n = [this](const char* r) {
    auto it = totals_.find(r);
    return it == totals_.end() ? 0 : it->second;
  };
  uint64_t decided = n("match") + n("differs") + n("missed") + n("superseded");
  std::string superseded = n("superseded") == 0 ? "" : recon::StrCat(", ", n("superseded"), " superseded");
  return recon::StrCat("shadow: ", decided, " predictions decided (", n("match"), " match, ", n("differs"),
                       " differs, ", n("missed"), " missed", superseded, "), ", comparator_.Open().size(),
                       " pending; ", n("unpredicted"), " unpredicted writes");
}

}  // namespace recon::cli
