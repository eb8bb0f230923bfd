#include "bench/sim_figures.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "adapters/sim/api.h"
#include "base/strings.h"
#include "engine/json.h"

namespace recon::bench {
namespace {

using engine::Json;

// A Subscription as OLM leaves it: spec plus the full status its CRD declares.
Json Subscription(uint64_t i) {
  std::string ns = recon::StrCat("ns-", i);
  return Json{{"apiVersion", "operators.coreos.com/v1alpha1"},
              {"kind", "Subscription"},
              {"metadata",
               {{"name", "etcd"}, {"namespace", ns}, {"labels", {{"operators.coreos.com/etcd." + ns, ""}}}}},
              {"spec",
               {{"name", "etcd"},
                {"channel", "singlenamespace-alpha"},
                {"installPlanApproval", "Automatic"},
                {"source", "community-operators"},
                {"sourceNamespace", "openshift-marketplace"},
                {"startingCSV", "etcdoperator.v0.9.2"}}},
              {"status",
               {{"catalogHealth",
                 {{{"catalogSourceRef",
                    {{"apiVersion", "operators.coreos.com/v1alpha1"},
                     {"kind", "CatalogSource"},
                     {"name", "community-operators"},
                     {"namespace", "openshift-marketplace"},
                     {"resourceVersion", "12345"},
                     {"uid", "6c0b1c3a-1f2e-4b7a-9d3c-2a1b0c9d8e7f"}}},
                   {"healthy", true},
                   {"lastUpdated", "2027-01-15T08:00:00Z"}}}},
                {"conditions",
                 {{{"type", "CatalogSourcesUnhealthy"},
                   {"status", "False"},
                   {"reason", "AllCatalogSourcesHealthy"},
                   {"message", "all available catalogsources are healthy"},
                   {"lastTransitionTime", "2027-01-15T08:00:00Z"}}}},
                {"currentCSV", "etcdoperator.v0.9.4"},
                {"installedCSV", "etcdoperator.v0.9.4"},
                {"installPlanGeneration", 2},
                {"installPlanRef",
                 {{"apiVersion", "operators.coreos.com/v1alpha1"},
                  {"kind", "InstallPlan"},
                  {"name", "install-abcde"},
                  {"namespace", ns},
                  {"resourceVersion", "23456"},
                  {"uid", "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"}}},
                {"installplan",
                 {{"apiVersion", "operators.coreos.com/v1alpha1"},
                  {"kind", "InstallPlan"},
                  {"name", "install-abcde"},
                  {"uuid", "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"}}},
                {"lastUpdated", "2027-01-15T08:00:00Z"},
                {"state", "AtLatestKnown"}}}};
}

Json ClusterOperator(uint64_t i) {
  Json conditions = Json::array();
  for (const char* t : {"Available", "Progressing", "Degraded", "Upgradeable"}) {
    conditions.push_back(
        {{"type", t},
         {"status", std::string(t) == "Available" || std::string(t) == "Upgradeable" ? "True" : "False"},
         {"lastTransitionTime", "2027-01-15T08:00:00Z"},
         {"reason", "AsExpected"},
         {"message", "Samples installation successful at 4.16.0"}});
  }
  return Json{{"apiVersion", "config.openshift.io/v1"},
              {"kind", "ClusterOperator"},
              {"metadata", {{"name", recon::StrCat("operator-", i)}}},
              {"spec", Json::object()},
              {"status",
               {{"conditions", conditions},
                {"versions", {{{"name", "operator"}, {"version", "4.16.0"}}}},
                {"relatedObjects",
                 {{{"group", "samples.operator.openshift.io"}, {"resource", "configs"}, {"name", "cluster"}},
                  {{"group", ""}, {"resource", "namespaces"}, {"name", "openshift-cluster-samples-operator"}},
                  {{"group", "template.openshift.io"},
                   {"resource", "templates"},
                   {"name", ""},
                   {"namespace", "openshift"}}}}}}};
}

// A samples ImageStream (openshift-apiserver's type: no CRD, schemaless here).
Json ImageStream(uint64_t i) {
  Json tags = Json::array();
  for (const char* t : {"2.7-ubi8", "3.0-ubi8", "3.1-ubi8", "latest"}) {
    tags.push_back(
        {{"name", t},
         {"annotations",
          {{"description", "Build and run Ruby applications on UBI 8."}, {"tags", "builder,ruby"}}},
         {"from", {{"kind", "DockerImage"}, {"name", recon::StrCat("registry.redhat.io/ubi8/ruby-", t)}}},
         {"referencePolicy", {{"type", "Local"}}}});
  }
  return Json{{"apiVersion", "image.openshift.io/v1"},
              {"kind", "ImageStream"},
              {"metadata", {{"name", recon::StrCat("ruby-", i)}, {"namespace", "openshift"}}},
              {"spec", {{"lookupPolicy", {{"local", false}}}, {"tags", tags}}}};
}

struct Pass {
  double seconds = 0;
  uint64_t writes = 0, refused = 0;
};

Pass RunPass(const std::vector<Json>& objects, uint64_t rounds, bool validate) {
  sim::ApiOptions opts = sim::ApiOptions::Default();
  opts.validate = validate;
  sim::ObjectStore store(1);
  sim::Api api(store, opts);
  Pass p;
  int64_t now = 1'800'000'000'000'000'000;
  auto start = std::chrono::steady_clock::now();
  auto count = [&p](const sim::ApiResult& r) {
    ++p.writes;
    if (!r.ok) ++p.refused;
  };
  for (const Json& o : objects) count(api.Create(o, now));
  for (uint64_t round = 0; round < rounds; ++round) {
    for (const Json& o : objects) {
      auto key = sim::KeyOf(o);
      if (!key.ok()) continue;
      const Json* cur = store.Get(*key);
      if (cur == nullptr) continue;
      Json next = *cur;
      next["metadata"]["annotations"] = {{"bench/round", std::to_string(round)}};
      count(api.Update(next, now));
      cur = store.Get(*key);
      Json st = *cur;
      st["status"] = o.contains("status") ? o["status"] : Json::object();
      if (o["kind"] == "ImageStream") st["status"] = {{"dockerImageRepository", ""}, {"tags", Json::array()}};
      if (st["status"].contains("lastUpdated"))
        st["status"]["lastUpdated"] = recon::StrCat("2027-01-15T08:0", round % 10, ":00Z");
      if (st["status"].contains("conditions") && !st["status"]["conditions"].empty())
        st["status"]["conditions"][0]["lastTransitionTime"] =
            recon::StrCat("2027-01-15T08:0", round % 10, ":00Z");
      count(api.UpdateStatus(st, now));
    }
  }
  p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return p;
}

}  // namespace

absl::StatusOr<SimWriteFigures> MeasureSimWrites(uint64_t objects, uint64_t rounds, int repeat) {
  if (objects == 0) return absl::InvalidArgumentError("objects must be > 0");
  if (sim::ApiOptions::Default().crds == nullptr)
    return absl::FailedPreconditionError("the built-in CRDs did not load");
  std::vector<Json> work;
  for (uint64_t i = 0; i < objects; ++i) {
    work.push_back(Subscription(i));
    work.push_back(ClusterOperator(i));
    work.push_back(ImageStream(i));
  }
  SimWriteFigures f;
  f.objects = objects;
  f.rounds = rounds;
  double best_on = 1e300, best_off = 1e300;
  for (int i = 0; i < std::max(1, repeat); ++i) {
    // Interleaved, so both modes see the same machine load.
    Pass on = RunPass(work, rounds, true);
    Pass off = RunPass(work, rounds, false);
    best_on = std::min(best_on, on.seconds);
    best_off = std::min(best_off, off.seconds);
    f.writes = on.writes;
    f.refused = on.refused;
  }
  f.validate_on_per_s = static_cast<double>(f.writes) / std::max(best_on, 1e-9);
  f.validate_off_per_s = static_cast<double>(f.writes) / std::max(best_off, 1e-9);
  f.ratio = f.validate_on_per_s / std::max(f.validate_off_per_s, 1e-9);
  return f;
}

std::string SimWriteFigures::ToJson() const {
  Json j = {{"objects_per_kind", objects},
            {"rounds", rounds},
            {"writes", writes},
            {"refused", refused},
            {"validate_on_writes_per_s", validate_on_per_s},
            {"validate_off_writes_per_s", validate_off_per_s},
            {"on_vs_off_ratio", ratio},
            {"timing", "wall clock of sim::Api create/update/updateStatus, best of passes"}};
  return engine::Dump(j);
}

}  // namespace recon::bench
