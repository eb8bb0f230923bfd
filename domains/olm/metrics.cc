// OLM's own Prometheus series (reference olm-operator.md §B.8), under
// upstream's names and labels so that dashboards and alerts written for OLM
// read recon's /metrics unchanged. The gauges are derived from the world at
// each scrape (upstream sets them on informer events and status writes:
// the same values once the events are in). Not exported yet: the counters
// (csv_upgrade_count, subscription_sync_total, installplan_warnings_total),
// catalogsource_ready and the resolution-duration summary.
#include <string>

#include "domains/olm/csv/phase.h"
#include "domains/olm/reducer.h"

namespace recon::olm {
namespace {

constexpr char kCsvCount[] = "csv_count";
constexpr char kCsvSucceeded[] = "csv_succeeded";
constexpr char kCsvAbnormal[] = "csv_abnormal";
constexpr char kPlanCount[] = "install_plan_count";
constexpr char kSubCount[] = "subscription_count";
constexpr char kCatalogCount[] = "catalog_source_count";

}  // namespace

void OlmReducer::ExportMetrics(const World& world, engine::MetricSink& m) const {
  m.Declare(kCsvCount, "gauge", "Number of CSVs successfully registered");
  m.Declare(kCsvSucceeded, "gauge", "Successful CSV install");
  m.Declare(kCsvAbnormal, "gauge", "CSV is not installed");
  m.Declare(kPlanCount, "gauge", "Number of install plans");
  m.Declare(kSubCount, "gauge", "Number of Subscriptions");
  m.Declare(kCatalogCount, "gauge", "Number of catalog sources");
  m.ClearFamily(kCsvSucceeded);
  m.ClearFamily(kCsvAbnormal);
  double csvs = 0;
  for (const engine::Object* o : world.List(kGroup, "ClusterServiceVersion")) {
    const Json& csv = o->json();
    if (IsCopiedCsv(csv)) continue;
    ++csvs;
    const std::string phase = engine::GetString(csv, {"status", "phase"});
    const engine::Labels id = {{"namespace", std::string(o->ns())},
                               {"name", std::string(o->name())},
                               {"version", engine::GetString(csv, {"spec", "version"})}};
    m.Set(kCsvSucceeded, id, phase == "Succeeded" ? 1 : 0);
    if (phase != "Succeeded") {
      engine::Labels abnormal = id;
      abnormal["phase"] = phase;
      abnormal["reason"] = engine::GetString(csv, {"status", "reason"});
      m.Set(kCsvAbnormal, abnormal, 1);
    }
  }
  m.Set(kCsvCount, {}, csvs);
  m.Set(kPlanCount, {}, static_cast<double>(world.List(kGroup, "InstallPlan").size()));
  m.Set(kSubCount, {}, static_cast<double>(world.List(kGroup, "Subscription").size()));
  m.Set(kCatalogCount, {}, static_cast<double>(world.List(kGroup, "CatalogSource").size()));
}

}  // namespace recon::olm
