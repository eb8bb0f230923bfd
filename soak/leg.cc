#include "soak/leg.h"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <thread>

#include "base/strings.h"
#include "engine/json.h"
#include "soak/checks.h"
#include "soak/child_process.h"
#include "soak/normalize.h"
#include "soak/olm.h"
#include "soak/scrape.h"
#include "soak/workload.h"
#include "store/rocksdb_store.h"

namespace recon::soak {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace

Leg::Leg(const SoakOptions& o, std::string name, bool faults) : o_(o), faults_(faults) {
  leg_.name = std::move(name);
}

absl::StatusOr<SoakLeg> Leg::Run() {
  auto t0 = Clock::now();
  if (auto s = StartCluster(); !s.ok()) return s;
  if (auto s = Drive(); !s.ok()) return s;
  if (auto s = Settle(); !s.ok()) return s;
  Finish();
  leg_.seconds = SecondsSince(t0);
  return leg_;
}

std::string Leg::Store() const {
  return o_.store.empty() ? (dir_ / "store").string() : recon::StrCat(o_.store, "/", leg_.name);
}

absl::Status Leg::StartCluster() {
  dir_ = fs::path(o_.dir) / leg_.name;
  std::error_code ec;
  fs::remove_all(dir_, ec);
  fs::create_directories(dir_, ec);
  if (ec) return absl::InternalError(recon::StrCat(dir_.string(), ": ", ec.message()));
  // A run starts a new log, as its directory is new.
  if (!o_.store.empty() && o_.clear_store) {
    if (auto s = o_.clear_store(Store()); !s.ok()) return s;
  }

  scenario_ = BuildSoakScenario(o_.workload);
  ScheduleFaults();
  domains_ = o_.domains;
  if (domains_.empty()) {
    domains_ = o_.workload.samples_inventory.empty() ? "disconnected" : "disconnected,samples";
    if (o_.olm) domains_ += ",olm";
    if (o_.workload.aro) domains_ += ",aro";
  }
  auto resources = o_.domain_resources(domains_);
  if (!resources.ok()) return resources.status();
  std::vector<engine::ResourceType> types;
  // Through ARM the agent reads the Azure objects by polling, not watching.
  arm_mode_ = o_.workload.aro && o_.workload.aro_arm;
  for (const auto& u : *resources) {
    types.push_back(u.type);
    if (arm_mode_ && u.type.group == "network.azure.com") continue;
    if (std::find(u.verbs.begin(), u.verbs.end(), "watch") != u.verbs.end())
      watched_.insert(recon::StrCat(u.type.group, "/", u.type.kind));
  }
  sim::ServeOptions so;
  so.speed = o_.speed;
  so.history = 20000;
  if (faults_) {
    scenario_.faults.drop_watch = o_.drop_watch;
    scenario_.faults.delay_watch = o_.delay_watch;
    scenario_.faults.delay_ns = o_.delay_ns;
    so.write_faults = o_.write_faults;
    so.fault_seed = o_.workload.seed;
  }
  // OLM's install step runs in the cluster, beside the agent's reducer.
  catalog_ = dir_ / "catalog";
  if (o_.olm) {
    so.controller = SoakOlmController(o_.olm);
    fs::path before = dir_ / "catalog-before";
    for (const auto& [path, text] : o_.olm->before) {
      fs::create_directories((before / path).parent_path(), ec);
      std::ofstream(before / path, std::ios::binary) << text;
    }
    fs::create_directory_symlink(fs::absolute(before), catalog_, ec);
    if (ec) return absl::InternalError(recon::StrCat(catalog_.string(), ": ", ec.message()));
  }
  auto server = sim::ApiServer::Start(scenario_, so, types);
  if (!server.ok()) return server.status();
  server_ = std::move(*server);
  if (arm_mode_) {
    auto a = sim::ArmServer::Start(*server_, sim::ArmServeOptions{});
    if (!a.ok()) return a.status();
    arm_ = std::move(*a);
    leg_.arm = true;
  }

  std::string kubeconfig = (dir_ / "kubeconfig").string();
  std::ofstream(kubeconfig)
      << "apiVersion: v1\nkind: Config\ncurrent-context: sim\n"
      << "clusters: [{name: sim, cluster: {server: \"" << server_->url() << "\"}}]\n"
      << "users: [{name: u, user: {}}]\n"
      << "contexts: [{name: sim, context: {cluster: sim, user: u, namespace: default}}]\n";
  AgentArgs(kubeconfig);
  log_ = (dir_ / "agent.log").string();
  return absl::OkStatus();
}

void Leg::AgentArgs(const std::string& kubeconfig) {
  metrics_port_ = FreePort();
  args_ = {o_.recon_binary,
           "agent",
           "--cluster",
           kubeconfig,
           "--store",
           Store(),
           "--domains",
           domains_,
           "--no-leader-election",
           "--qps",
           "0",
           "--queue-qps",
           "0",
           "--port",
           std::to_string(metrics_port_),
           "--probe-via",
           server_->url()};
  args_.insert(args_.end(), o_.store_args.begin(), o_.store_args.end());
  if (arm_) {
    for (std::string a : {std::string("--azure"), std::string("--arm-endpoint"), arm_->url(),
                          std::string("--aad-endpoint"), arm_->url()})
      args_.push_back(std::move(a));
  }
  for (auto it = scenario_.facts.begin(); it != scenario_.facts.end(); ++it) {
    args_.push_back("--fact");
    args_.push_back(
        recon::StrCat(it.key(), "=", it->is_string() ? it->get<std::string>() : engine::Dump(*it)));
  }
  for (const auto& [k, v] : scenario_.options) {
    if (!domains_.empty() && k.rfind("samples.", 0) == 0 && domains_.find("samples") == std::string::npos)
      continue;
    args_.push_back("--set");
    args_.push_back(recon::StrCat(k, "=", v));
  }
  if (o_.olm) {  // the agent is both of OLM's operators; the cluster plays only Kubernetes
    for (const char* set : {"olm.executePlans=true", "olm.csvLifecycle=true"}) {
      args_.push_back("--set");
      args_.push_back(set);
    }
  }
  if (o_.olm) {
    args_.push_back("--catalog");
    args_.push_back(
        recon::StrCat(kSoakCatalogNamespace, "/", kSoakCatalogName, "=", fs::absolute(catalog_).string()));
    args_.push_back("--catalog-poll");
    args_.push_back("1s");
  }
  if (!o_.workload.samples_inventory.empty() && domains_.find("samples") != std::string::npos) {
    args_.push_back("--set");
    args_.push_back(
        recon::StrCat("samples.inventory=", fs::absolute(o_.workload.samples_inventory).string()));
  }
}

void Leg::ScheduleFaults() {
  int64_t last_edit_ns = scenario_.edits.empty() ? 0 : scenario_.edits.back().at_ns;
  duration_s_ = static_cast<double>(last_edit_ns) / 1e9 / o_.speed;
  if (!faults_) return;
  double rotate_s = 0;
  for (const auto& e : scenario_.edits)
    if (engine::GetString(e.object, {"kind"}) == "Secret" && e.path == "data.azure_client_secret")
      rotate_s = static_cast<double>(e.at_ns) / 1e9 / o_.speed;
  faults_list_ = DrawFaults(o_, duration_s_, rotate_s);
  duration_s_ = PauseForOutages(duration_s_, o_.speed, &faults_list_, &scenario_);
}

absl::Status Leg::Drive() {
  const double duration_s = duration_s_;
  const std::vector<Fault>& faults = faults_list_;
  auto start = Clock::now();
  pid_ = SpawnLogged(args_, log_);
  memory_.Restart();
  size_t next = 0;
  bool catalog_updated = !o_.olm;
  while (SecondsSince(start) < duration_s) {
    memory_.Sample(pid_, metrics_port_);
    // The catalog's update, once no upgrade is on its way (OlmUpgradeInFlight):
    // the directory the agent polls now holds the real catalog (a symlink
    // swapped in one rename). Served mid-upgrade, it is upstream's own race
    // (two CSVs of one package, ConstraintsNotSatisfiable for good), which a
    // fault-free run does not hit at the same moment: never forced while
    // the workload runs (a loaded machine made a wall-clock deadline fire
    // mid-upgrade), at the latest after it (below).
    const double update_s = o_.catalog_update_at * duration_s;
    if (!catalog_updated && SecondsSince(start) >= update_s &&
        !OlmUpgradeInFlight(server_->Objects(), o_.olm->heads_before)) {
      catalog_updated = true;
      if (auto s = ServeCatalogUpdate(); !s.ok()) return s;
    }
    while (next < faults.size() && SecondsSince(start) >= faults[next].at * duration_s) {
      Inject(faults[next++]);
    }
    if (!Alive(pid_)) return absl::InternalError(recon::StrCat("the agent exited early; see ", log_));
    if (o_.progress) o_.progress(leg_.name, SecondsSince(start) / duration_s, false);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!catalog_updated) {
    // Not served during the workload: once the upgrades on their way are
    // done (bounded: a run that never settles fails its convergence check).
    auto wait_start = Clock::now();
    while (SecondsSince(wait_start) < 120 && OlmUpgradeInFlight(server_->Objects(), o_.olm->heads_before)) {
      if (!Alive(pid_)) return absl::InternalError(recon::StrCat("the agent exited early; see ", log_));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (auto s = ServeCatalogUpdate(); !s.ok()) return s;
  }
  if (arm_) {
    // ARM down and AAD's early rotation end with the workload at the
    // latest (the API's outages, 409/429/500 and watch faults go on); the
    // 429s and 412s not used up yet and slow operations stay: they slow
    // the settle's repairs, not their outcome.
    arm_->SetDown(false);
    arm_->RotateSecret("");
  }
  return absl::OkStatus();
}

absl::Status Leg::ServeCatalogUpdate() {
  std::error_code ec;
  fs::path next_link = dir_ / "catalog.next";
  fs::remove(next_link, ec);
  fs::create_directory_symlink(fs::absolute(o_.olm->dir), next_link, ec);
  if (!ec) fs::rename(next_link, catalog_, ec);
  if (ec) return absl::InternalError(recon::StrCat(catalog_.string(), ": ", ec.message()));
  return absl::OkStatus();
}

absl::Status Leg::Settle() {
  // Converged: the agent's queue is empty and the servers saw no request
  // for quiet_ms (faults keep running: retries must still settle). An ARM
  // poll that found nothing new (every GET answered as the one before it)
  // is not work: the agent polls on its aro/subnets interval forever.
  auto activity = [&] {
    uint64_t n = server_->Stats().requests;
    if (arm_) {
      sim::ArmStats a = arm_->Stats();
      n += a.requests - a.unchanged_reads;
    }
    return n;
  };
  uint64_t requests = activity();
  auto quiet_since = Clock::now();
  auto settle_start = Clock::now();
  while (SecondsSince(settle_start) * 1000 < static_cast<double>(o_.settle_limit_ms)) {
    memory_.Sample(pid_, metrics_port_);
    if (o_.progress) o_.progress(leg_.name, 1.0, true);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    uint64_t now = activity();
    if (now != requests || QueueDepth(metrics_port_) != 0) {
      requests = now;
      quiet_since = Clock::now();
    } else if (SecondsSince(quiet_since) * 1000 >= static_cast<double>(o_.quiet_ms)) {
      leg_.converged = true;
      break;
    }
    if (!Alive(pid_)) return absl::InternalError(recon::StrCat("the agent exited early; see ", log_));
  }
  return absl::OkStatus();
}

void Leg::Finish() {
  std::string metrics = arm_ ? LocalGet(metrics_port_, "/metrics") : "";
  kill(pid_, SIGTERM);
  leg_.agent_exit = WaitExit(pid_, 30);
  memory_.Finish((dir_ / "rss.tsv").string(), &leg_);

  std::vector<std::string> tokens;
  if (arm_) {
    leg_.arm_stats = arm_->Stats();
    tokens = arm_->IssuedTokens();
    arm_->Stop();
  }
  leg_.server = server_->Stats();
  auto objects = server_->Objects();
  server_->Stop();
  std::map<std::string, std::string> state;
  for (const auto& [key, body] : objects) {
    if (key.rfind("coordination.k8s.io/Lease/", 0) == 0) continue;
    state[key] = body;
  }
  NormalizeOlmState(&state);
  for (const auto& [key, body] : state) leg_.final_state[key] = NormalizeForSoak(body);
  CheckLogAgainstCluster(o_.open_store ? o_.open_store(Store())
                                       : [&]() -> absl::StatusOr<std::unique_ptr<store::EventStore>> {
                                           auto st = store::RocksDbStore::Open(Store());
                                           if (!st.ok()) return st.status();
                                           return std::unique_ptr<store::EventStore>(std::move(*st));
                                         }(),
                         watched_, objects, arm_mode_, &leg_);
  {
    std::ofstream out(dir_ / "final-state.jsonl");
    for (const auto& [key, body] : leg_.final_state) out << body << "\n";
  }
  // Options come from the log's Cluster event, as the agent recorded them.
  std::vector<std::string> check = {o_.recon_binary, "replay", "--store", Store(), "--check", "--domains", domains_};
  check.insert(check.end(), o_.store_args.begin(), o_.store_args.end());
  // A replay reads every event again: 600 s, or longer for a long run. The
  // 1 M-event replay took about 12 min on 2 busy cores (~1,400 events/s);
  // allow twice that. A fixed 600 s killed the 1.1 M-event run's check.
  const double limit_s = std::max(600.0, static_cast<double>(leg_.events) / 700.0);
  leg_.replay_check_exit = WaitExit(SpawnLogged(check, (dir_ / "replay-check.log").string()), limit_s);
  if (arm_mode_) CheckNoSecrets(o_, dir_, Store(), tokens, metrics, &leg_);
}

void Leg::Inject(const Fault& f) {
  switch (f.kind) {
    case Fault::kKill:
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      ++leg_.kills;
      std::this_thread::sleep_for(std::chrono::milliseconds(f.ms));
      pid_ = SpawnLogged(args_, log_);
      memory_.Restart();
      break;
    case Fault::kOutage:
      server_->Unavailable(f.ms);
      break;
    case Fault::kDropWatches:
      server_->DropWatches();
      break;
    case Fault::kCompact:
      server_->Compact();
      break;
    default:
      if (arm_ != nullptr && InjectArmFault(*arm_, f)) ++leg_.arm_faults;
      break;
  }
}

}  // namespace recon::soak
