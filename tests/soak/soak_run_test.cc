// recon soak end to end (soak/soak.h): small runs — agent kills, an outage,
// write faults, cut watches, ARM faults — each pass every check against a
// fault-free run of the same seed.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "base/strings.h"
#include "cli/domains.h"
#include "domains/olm/resolve/catalog_index.h"
#include "soak/soak.h"

namespace recon::soak {
namespace {

namespace fs = std::filesystem;

const char* kRealInventory = RECON_SOURCE_DIR "/datasets/samples/ocp-x86_64";
const char* kSmallInventory = RECON_SOURCE_DIR "/examples/samples-inventory";
const char* kOlmCatalog = RECON_SOURCE_DIR "/datasets/olm/community-derived";

// What a failed soak says about itself: its failures and their examples.
std::string WhyFailed(const SoakReport& r) {
  std::string why;
  for (const auto& f : r.failures) why += f + "\n";
  for (const auto& e : r.difference_examples) why += e + "\n";
  for (const auto& e : r.faults.server.examples) why += e + "\n";
  for (const auto& e : r.faults.log_examples) why += e + "\n";
  for (const auto& e : r.faults.leak_examples) why += e + "\n";
  for (const auto& e : r.baseline.leak_examples) why += e + "\n";
  return why;
}

// The suite's fault schedule: 20 edits per real second at 60 cluster
// seconds each, 2 kills, one outage of 30–60 s, 2 cut watches, 8% of
// writes failed.
void SmallFaultSchedule(SoakOptions& o) {
  o.speed = 60;
  o.workload.spacing_ns = 3'000'000'000;  // 20 edits per real second
  o.kills = 2;
  o.outages = 1;
  o.outage_min_ns = 30'000'000'000;
  o.outage_max_ns = 60'000'000'000;
  o.watch_cuts = 2;
  o.write_faults = 0.08;
}

TEST(Soak, SmallRunWithKillsOutageAndFaultsMatchesFaultFreeRun) {
  SoakOptions o;
  o.recon_binary = RECON_BINARY;
  o.domain_resources = cli::DomainResourcesOf;
  o.dir = (fs::temp_directory_path() / recon::StrCat("recon-soak-test-", getpid())).string();
  o.workload.instances = 16;
  o.workload.namespaces = 4;
  o.workload.edits = 80;
  // The samples domain too, flipped Removed and back twice, its skip lists
  // and registry override edited 8 times: the real inventory when it is
  // there (50 streams, 50 templates), else our small one.
  o.workload.samples_inventory = fs::is_directory(kRealInventory) ? kRealInventory : kSmallInventory;
  o.workload.samples_every = 20;
  ASSERT_TRUE(LoadSoakSamplesNames(&o.workload, cli::LoadDirectory).ok());
  o.speed = 60;
  o.workload.spacing_ns = 3'000'000'000;  // 20 edits per real second
  o.kills = 2;
  o.outages = 1;
  o.outage_min_ns = 30'000'000'000;  // half a second to one second of real time
  o.outage_max_ns = 60'000'000'000;
  o.watch_cuts = 2;
  o.write_faults = 0.08;
  o.rss_limit = 1.0;  // a few seconds of agent are all warm-up; `recon soak` measures RSS
  auto r = RunSoak(o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->failures.empty()) << WhyFailed(*r);
  // The faults really happened.
  EXPECT_EQ(r->faults.kills, 2);
  // The outage happened; whether the agent asked anything during it depends
  // on timing (a kill's restart can span it), so no count of 503s here.
  EXPECT_EQ(r->faults.server.outages, 1u);
  EXPECT_GT(r->faults.server.injected, 0u);
  EXPECT_EQ(r->baseline.server.injected, 0u);
  EXPECT_GT(r->baseline.events, 500u);
  EXPECT_GT(r->faults.events, 500u);
  EXPECT_GE(r->baseline.final_state.size(), 49u);  // the operator, 16 instances, their 32 Deployments
  // The samples are back after the last Managed, in both runs.
  for (const auto* leg : {&r->baseline, &r->faults}) {
    EXPECT_TRUE(leg->final_state.contains("image.openshift.io/ImageStream/openshift/ruby")) << leg->name;
    EXPECT_TRUE(leg->final_state.contains("samples.operator.openshift.io/Config//cluster")) << leg->name;
  }
  if (r->failures.empty()) fs::remove_all(o.dir);
}

// The olm domain under the same faults: subscriptions of a real catalog's
// packages created, switched and recreated, the catalog updated mid-run.
// Back in the suite since the domains use the engine's write tracker
// (issue 19): echoes told by resourceVersion, an event that beats its
// write's answer held until the answer, a lost plan status written again.
// recon is both of OLM's operators (issue 49: unpack Jobs, steps, phases;
// issue 50: CSVs, Deployments, copies) and the cluster plays only the
// kubelet (unpack Jobs, Deployments), the CRD controller and the garbage
// collector.
TEST(Soak, SmallOlmRunWithKillsOutageAndFaultsMatchesFaultFreeRun) {
  if (!fs::is_directory(kOlmCatalog)) FAIL() << kOlmCatalog << " is not there";
  SoakOptions o;
  o.recon_binary = RECON_BINARY;
  o.domain_resources = cli::DomainResourcesOf;
  o.dir = (fs::temp_directory_path() / recon::StrCat("recon-soak-olm-test-", getpid())).string();
  o.domains = "disconnected,olm";
  o.workload.instances = 4;
  o.workload.namespaces = 2;
  o.workload.edits = 80;
  auto olm = LoadSoakOlm(kOlmCatalog, cli::LoadDirectory, 6, o.workload.seed);
  ASSERT_TRUE(olm.ok()) << olm.status();
  o.olm = *olm;
  o.workload.olm_packages = o.olm->packages;
  o.workload.olm_every = 2;
  o.workload.olm_namespaces = 3;
  SmallFaultSchedule(o);
  o.rss_limit = 1.0;
  auto r = RunSoak(o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->failures.empty()) << WhyFailed(*r);
  EXPECT_EQ(r->faults.kills, 2);
  EXPECT_GT(r->faults.server.injected, 0u);
  // Operators were installed and upgraded: CSVs exist, and every automatic
  // subscription ends at its channel's head in the real catalog (for the
  // updated packages, a head only the update has).
  auto files = cli::LoadDirectory(kOlmCatalog);
  ASSERT_TRUE(files.ok());
  auto full = olm::CatalogIndex::Load(*files);
  ASSERT_TRUE(full.ok());
  auto head = [&](const std::string& pkg, const std::string& channel) {
    const auto* p = (*full)->FindPackage(pkg);
    const auto* ch = p ? p->Find(channel) : nullptr;
    return ch && !ch->order.empty() ? (*full)->entries()[static_cast<size_t>(ch->order.front())].name : "";
  };
  for (const auto* leg : {&r->baseline, &r->faults}) {
    int subs = 0, csvs = 0, at_new_head = 0;
    for (const auto& [key, body] : leg->final_state) {
      csvs += key.starts_with("operators.coreos.com/ClusterServiceVersion/");
      if (!key.starts_with("operators.coreos.com/Subscription/olm-soak-0/")) continue;
      ++subs;
      auto j = engine::ParseJson(body);
      ASSERT_TRUE(j.ok());
      EXPECT_EQ(engine::GetString(*j, {"status", "state"}), "AtLatestKnown") << body;
      std::string pkg = engine::GetString(*j, {"spec", "name"});
      EXPECT_EQ(engine::GetString(*j, {"status", "installedCSV"}),
                head(pkg, engine::GetString(*j, {"spec", "channel"})))
          << leg->name << " " << body;
      if (std::find(o.olm->updated.begin(), o.olm->updated.end(), pkg) != o.olm->updated.end()) ++at_new_head;
    }
    EXPECT_GT(subs, 0) << leg->name;
    EXPECT_GT(csvs, 0) << leg->name;
    EXPECT_GT(at_new_head, 0) << leg->name;
  }
  if (r->failures.empty()) fs::remove_all(o.dir);
}

// aro through the simulated ARM (recon soak --aro --aro-arm): the agent
// polls ARM for the subnets and the NSG and PUTs its repairs there, under
// kills, an API outage, write faults and ARM's own faults (429 with
// Retry-After, 412, slow operations, revoked tokens, ARM down, AAD ahead of
// the Secret's rotation). Same final state as the fault-free run, the log's
// etags are ARM's, and no secret or token in the agent's output, its log
// export or /metrics (RunSoak's checks).
TEST(Soak, SmallAroArmRunWithArmFaultsMatchesFaultFreeRun) {
  SoakOptions o;
  o.recon_binary = RECON_BINARY;
  o.domain_resources = cli::DomainResourcesOf;
  o.dir = (fs::temp_directory_path() / recon::StrCat("recon-soak-aro-arm-test-", getpid())).string();
  o.domains = "disconnected,aro";
  o.workload.instances = 4;
  o.workload.namespaces = 2;
  o.workload.edits = 80;
  o.workload.aro = true;
  o.workload.aro_every = 4;
  o.workload.aro_arm = true;
  SmallFaultSchedule(o);
  o.arm_faults = 5;
  o.rss_limit = 1.0;
  auto r = RunSoak(o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->failures.empty()) << WhyFailed(*r);
  EXPECT_EQ(r->faults.kills, 2);
  EXPECT_EQ(r->faults.arm_faults, 6);  // 5 episodes and AAD ahead of the rotation
  const sim::ArmStats& f = r->faults.arm_stats;
  // 429s not used up by the end are used up by the settle's polls. Whether
  // a revoked token or AAD's early rotation meets a request depends on the
  // kills' timing in a run this short (`recon soak` runs, docs/soak.md).
  EXPECT_GT(f.throttled, 0u);
  EXPECT_EQ(r->baseline.arm_stats.token_refused, 0u);
  EXPECT_EQ(r->baseline.arm_stats.throttled, 0u);
  for (const auto* leg : {&r->baseline, &r->faults}) {
    EXPECT_TRUE(leg->arm) << leg->name;
    EXPECT_GT(leg->arm_stats.puts, 0u) << leg->name;  // the workload's drifts were repaired through ARM
    EXPECT_GT(leg->arm_stats.unchanged_reads, 0u) << leg->name;
    EXPECT_EQ(leg->secret_leaks, 0u) << leg->name;
    // The Secret ends rotated, the service principal valid.
    auto cluster = engine::ParseJson(leg->final_state.at("aro.openshift.io/Cluster//cluster"));
    ASSERT_TRUE(cluster.ok());
    std::string sp;
    for (const auto& c : engine::Path(*cluster, {"status", "conditions"}))
      if (engine::GetString(c, {"type"}) == "ServicePrincipalValid") sp = engine::GetString(c, {"status"});
    EXPECT_EQ(sp, "True") << leg->name;
  }
  if (r->failures.empty()) fs::remove_all(o.dir);
}

}  // namespace
}  // namespace recon::soak
