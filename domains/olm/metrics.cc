// OLM's own Prometheus series (reference olm-operator.md §B.8), under
// upstream's names and labels so that dashboards and alerts written for OLM
// read recon's /metrics unchanged. The gauges are derived from the world at
// each scrape (upstream sets them on informer events and status writes:
// the same values once the events are in). The counters count since the
// reducer was built, as upstream's since its process started: after a
// restart they start again (Prometheus takes that as a counter reset).
// Not exported: the resolution-duration summary (wall time).
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "base/strings.h"
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
constexpr char kCatalogReady[] = "catalogsource_ready";
constexpr char kCsvUpgrades[] = "csv_upgrade_count";
constexpr char kSubSyncs[] = "subscription_sync_total";
constexpr char kPlanWarnings[] = "installplan_warnings_total";
constexpr char kSep = '\x1f';  // between the labels of a subscription's series key

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
  ExportCounters(world, m);
}

void OlmReducer::ExportCounters(const World& world, engine::MetricSink& m) const {
  m.Declare(kCatalogReady, "gauge", "State of a CatalogSource connection, 1 if ready, 0 if not");
  m.Declare(kCsvUpgrades, "counter", "Monotonic count of CSV upgrades");
  m.Declare(kSubSyncs, "counter", "Monotonic count of subscription syncs");
  m.Declare(
      kPlanWarnings, "counter",
      "monotonic count of resources that generated warnings when applied as part of an InstallPlan (for "
      "example, due to deprecation)");
  // Ready: its content observed and loaded as a valid catalog (recon's
  // registry connection is the Content event).
  m.ClearFamily(kCatalogReady);
  for (const engine::Object* o : world.List(kGroup, "CatalogSource")) {
    auto lc = catalogs_.find(StrCat(kCatalogPrefix, o->ns(), "/", o->name()));
    const bool ready = world.contents().contains(StrCat(kCatalogPrefix, o->ns(), "/", o->name())) &&
                       (lc == catalogs_.end() || lc->second.error.empty());
    m.Set(kCatalogReady, {{"namespace", std::string(o->ns())}, {"name", std::string(o->name())}},
          ready ? 1 : 0);
  }
  m.Set(kCsvUpgrades, {}, static_cast<double>(csv_upgrades_));
  m.Set(kPlanWarnings, {}, static_cast<double>(plan_warnings_));
  // One series per label set (upstream's labels carry no namespace: two
  // subscriptions alike in them share a series).
  std::map<std::string, double> series;
  for (const auto& [sub, count] : sub_syncs_) series[count.first] += static_cast<double>(count.second);
  m.ClearFamily(kSubSyncs);
  for (const auto& [key, n] : series) {
    std::vector<std::string> v = absl::StrSplit(key, kSep);
    if (v.size() != 5) continue;
    m.Set(kSubSyncs,
          {{"name", v[0]}, {"installed", v[1]}, {"channel", v[2]}, {"package", v[3]}, {"approval", v[4]}}, n);
  }
}

void OlmReducer::CountSubscriptionSyncs(const std::string& ns, const NsIndex& x) {
  for (const auto& [name, v] : x.subs) {
    if (!v.valid) continue;
    std::string key = StrCat(name, std::string(1, kSep), engine::GetString(v.Seen(), {"installedCSV"}),
                             std::string(1, kSep), v.channel, std::string(1, kSep), v.package,
                             std::string(1, kSep), v.approval);
    // Upstream deletes a subscription's series when its values change.
    auto& [labels, n] = sub_syncs_[StrCat(ns, "/", name)];
    if (labels != key) {
      labels = std::move(key);
      n = 0;
    }
    ++n;
  }
}

}  // namespace recon::olm
