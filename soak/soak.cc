#include "soak/soak.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "absl/strings/escaping.h"
#include "base/splitmix.h"
#include "base/strings.h"
#include "engine/json.h"
#include "soak/aro.h"
#include "soak/child_process.h"
#include "store/codec.h"
#include "store/rocksdb_store.h"

namespace recon::soak {
namespace {

namespace fs = std::filesystem;
using engine::Json;
using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

bool Alive(pid_t pid) {
  int status = 0;
  return waitpid(pid, &status, WNOHANG) == 0;
}

int64_t RssKb(pid_t pid) {
  std::ifstream in(recon::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atoll(line.c_str() + 6);
  }
  return 0;
}

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  int port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

// One blocking GET on loopback (the agent's /metrics); empty on any error.
std::string LocalGet(int port, const std::string& path) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "";
  timeval tv{2, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string out;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    std::string req =
        recon::StrCat("GET ", path, " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    if (send(fd, req.data(), req.size(), 0) == static_cast<ssize_t>(req.size())) {
      char buf[16384];
      for (ssize_t n; (n = recv(fd, buf, sizeof(buf), 0)) > 0;) out.append(buf, static_cast<size_t>(n));
    }
  }
  close(fd);
  return out;
}

// The agent's work queue depth from /metrics; -1 when not known.
int64_t QueueDepth(int port) {
  std::string m = LocalGet(port, "/metrics");
  size_t at = m.find("\nrecon_queue_depth ");
  if (at == std::string::npos) return -1;
  return std::atoll(m.c_str() + at + 19);
}

// The sum of a gauge family's series in /metrics text, in kB; -1 when the
// family is not there.
int64_t GaugeKb(const std::string& metrics, const std::string& family) {
  int64_t total = -1;
  const std::string start = recon::StrCat("\n", family);
  for (size_t at = metrics.find(start); at != std::string::npos; at = metrics.find(start, at + 1)) {
    size_t name_end = at + start.size();
    if (name_end >= metrics.size() || (metrics[name_end] != '{' && metrics[name_end] != ' ')) continue;
    size_t sp = metrics.find(' ', metrics[name_end] == '{' ? metrics.find('}', name_end) : name_end);
    if (sp == std::string::npos) break;
    total = std::max<int64_t>(total, 0) + static_cast<int64_t>(std::atof(metrics.c_str() + sp + 1) / 1024);
  }
  return total;
}

void DropKeys(Json& j, const std::set<std::string>& keys) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end();) {
      if (keys.contains(it.key())) {
        it = j.erase(it);
      } else {
        DropKeys(*it, keys);
        ++it;
      }
    }
  } else if (j.is_array()) {
    for (auto& e : j) DropKeys(e, keys);
  }
}

// Conditions keep the order they were first set in, which is history, not
// state: compare them by type.
void SortConditions(Json& j) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "conditions" && it->is_array()) {
        std::vector<Json> v(it->begin(), it->end());
        std::stable_sort(v.begin(), v.end(), [](const Json& a, const Json& b) {
          return engine::GetString(a, {"type"}) < engine::GetString(b, {"type"});
        });
        *it = Json(v);
      } else {
        SortConditions(*it);
      }
    }
  } else if (j.is_array()) {
    for (auto& e : j) SortConditions(e);
  }
}

struct Fault {
  double at = 0;  // fraction of the workload's real duration
  enum Kind {
    kKill,
    kOutage,
    kDropWatches,
    kCompact,
    // ARM (--aro-arm): an episode starts with one of these ...
    kArmThrottle,      // the next `count` ARM requests 429 with Retry-After `retry_s`
    kArmStaleEtags,    // the next `count` PUTs 412
    kArmSlowAsync,     // operations answer InProgress `count` times, to the end of the run
    kArmExpireTokens,  // every issued token 401 (the client fetches a new one)
    kArmDown,          // every ARM and AAD request 503 ...
    kAadAhead,         // AAD takes only the rotated secret, before the cluster's Secret has it
    kArmUp,            // ... until here
  } kind = kKill;
  int64_t ms = 0;  // downtime (kill) or outage length
  int count = 0, retry_s = 0;
};

// `rotate_s`: when (real seconds into the workload) the workload rotates
// the service principal's secret; <= 0: it does not.
std::vector<Fault> DrawFaults(const SoakOptions& o, double duration_s, double rotate_s) {
  SplitMix64 rng(o.workload.seed * 0x2545F4914F6CDD1Dull + 99);
  std::vector<Fault> out;
  // Kills and outages in the first part, so the final agent runs
  // undisturbed for the second half (its RSS is measured there).
  for (int i = 0; i < o.kills; ++i)
    out.push_back(
        {0.05 + 0.4 * rng.Uniform(), Fault::kKill, 100 + static_cast<int64_t>(rng.Uniform() * 900)});
  for (int i = 0; i < o.outages; ++i) {
    double ns = static_cast<double>(o.outage_min_ns) +
                rng.Uniform() * static_cast<double>(o.outage_max_ns - o.outage_min_ns);
    out.push_back({0.05 + 0.4 * rng.Uniform(), Fault::kOutage, static_cast<int64_t>(ns / 1e6 / o.speed)});
  }
  for (int i = 0; i < o.watch_cuts; ++i)
    out.push_back({0.05 + 0.75 * rng.Uniform(), i % 2 == 0 ? Fault::kDropWatches : Fault::kCompact, 0});
  if (o.workload.aro && o.workload.aro_arm && duration_s > 0) {
    // Their own stream: the other faults stay what they were.
    SplitMix64 arm(o.workload.seed * 0x94D049BB133111EBull + 71);
    auto end = [&](double at, int64_t ms) {
      return std::min(0.95, at + static_cast<double>(ms) / 1e3 / duration_s);
    };
    for (int i = 0; i < o.arm_faults; ++i) {
      double at = 0.05 + 0.7 * arm.Uniform();
      switch (i % 5) {
        case 0:
          out.push_back({at, Fault::kArmThrottle, 0, 3 + static_cast<int>(arm.Next() % 8),
                         1 + static_cast<int>(arm.Next() % 2)});
          break;
        case 1:
          out.push_back({at, Fault::kArmStaleEtags, 0, 1 + static_cast<int>(arm.Next() % 3)});
          break;
        case 2:
          // To the end: the settle's repairs (of the last ARM edits) are slow too.
          out.push_back({at, Fault::kArmSlowAsync, 0, 2 + static_cast<int>(arm.Next() % 3)});
          break;
        case 3:
          out.push_back({at, Fault::kArmExpireTokens});
          break;
        case 4: {
          int64_t ms = 2'000 + static_cast<int64_t>(arm.Uniform() * 4'000);
          out.push_back({at, Fault::kArmDown, ms});
          out.push_back({end(at, ms), Fault::kArmUp});
          break;
        }
      }
    }
    if (rotate_s > 0)
      out.push_back(
          {std::max(0.01, (rotate_s - static_cast<double>(o.aad_rotation_lead_ms) / 1e3) / duration_s),
           Fault::kAadAhead});
  }
  std::stable_sort(out.begin(), out.end(), [](const Fault& a, const Fault& b) { return a.at < b.at; });
  return out;
}

std::string Key(const store::ObjectIdRecord& o) {
  return recon::StrCat(o.group, "/", o.kind, "/", o.ns, "/", o.name);
}

// Compares the objects as the store's events leave them with the server's,
// for the types the agent watches; with `arm_etags`, also the Azure objects
// the agent reads through ARM: the log's last resourceVersion of each is
// the etag ARM serves for it now.
void CheckLogAgainstCluster(const std::string& store_dir, const std::set<std::string>& watched,
                            const std::vector<std::pair<std::string, std::string>>& server, bool arm_etags,
                            SoakLeg* leg) {
  auto add = [&](std::string what) {
    ++leg->log_mismatches;
    if (leg->log_examples.size() < 10) leg->log_examples.push_back(std::move(what));
  };
  auto st = store::RocksDbStore::Open(store_dir);
  if (!st.ok()) {
    add(recon::StrCat("store: ", Sv(st.status().message())));
    return;
  }
  leg->events = (*st)->LastSeq();
  std::map<std::string, std::string> logged;  // key → resourceVersion
  auto it = (*st)->ReadEvents(1, (*st)->LastSeq());
  if (!it.ok()) {
    add(recon::StrCat("store: ", Sv(it.status().message())));
    return;
  }
  for (auto& i = *it; i->Valid(); i->Next()) {
    auto e = store::DecodeEvent(i->payload());
    if (!e.ok()) {
      add(recon::StrCat("seq ", i->seq(), ": ", Sv(e.status().message())));
      continue;
    }
    if (e->type == store::EventType::kDeleted) {
      logged.erase(Key(e->object));
    } else if (e->type == store::EventType::kAdded || e->type == store::EventType::kModified) {
      auto j = engine::ParseJson(e->body);
      logged[Key(e->object)] = j.ok() ? engine::GetString(*j, {"metadata", "resourceVersion"}) : "";
    }
  }
  if (!(*it)->status().ok()) add(recon::StrCat("store: ", Sv((*it)->status().message())));
  std::map<std::string, std::string> live;
  const std::string azure = "network.azure.com/";
  auto checked = [&](const std::string& type) {
    return watched.contains(type) || (arm_etags && type.rfind(azure, 0) == 0);
  };
  for (const auto& [key, body] : server) {
    std::string type = key.substr(0, key.find('/', key.find('/') + 1));
    if (!checked(type)) continue;
    auto j = engine::ParseJson(body);
    if (arm_etags && type.rfind(azure, 0) == 0) {
      live[key] = j.ok() ? sim::ArmEtag(engine::Dump(engine::Path(*j, {"spec"}))) : "";
      continue;
    }
    live[key] = j.ok() ? engine::GetString(*j, {"metadata", "resourceVersion"}) : "";
  }
  for (const auto& [key, rv] : live) {
    auto l = logged.find(key);
    if (l == logged.end()) {
      add(recon::StrCat(key, ": in the cluster (resourceVersion ", rv, "), not in the log"));
    } else if (l->second != rv) {
      add(recon::StrCat(key, ": the log's last resourceVersion ", l->second, ", the cluster's ", rv));
    }
  }
  for (const auto& [key, rv] : logged) {
    std::string type = key.substr(0, key.find('/', key.find('/') + 1));
    if (checked(type) && !live.contains(key))
      add(recon::StrCat(key, ": deleted in the cluster, still present in the log"));
  }
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// No client secret (plain or base64, the old and the rotated one) and no
// access token the simulated AAD issued in what the agent printed, what
// `recon log export` prints of its store, or its /metrics.
void CheckNoSecrets(const SoakOptions& o, const fs::path& dir, const std::vector<std::string>& tokens,
                    const std::string& metrics, SoakLeg* leg) {
  WaitExit(SpawnLogged({o.recon_binary, "log", "export", "--store", (dir / "store").string()},
                       (dir / "export.jsonl").string()),
           600);
  std::vector<std::pair<std::string, std::string>> haystacks = {
      {"agent.log", ReadAll(dir / "agent.log")},
      {"recon log export", ReadAll(dir / "export.jsonl")},
      {"/metrics", metrics}};
  std::vector<std::pair<std::string, std::string>> needles;  // what, value
  for (const char* secret : {"secret-1", kSoakRotatedSecret}) {
    needles.emplace_back(recon::StrCat("the client secret ", secret), secret);
    std::string b64;
    absl::Base64Escape(secret, &b64);
    needles.emplace_back(recon::StrCat("the client secret ", secret, " (base64)"), b64);
  }
  for (size_t i = 0; i < tokens.size(); ++i)
    needles.emplace_back(recon::StrCat("access token ", i + 1, " of ", tokens.size()), tokens[i]);
  for (const auto& [where, text] : haystacks) {
    if (text.empty()) {
      ++leg->secret_leaks;
      leg->leak_examples.push_back(recon::StrCat(where, ": empty, so not checked"));
      continue;
    }
    for (const auto& [what, value] : needles) {
      if (value.empty() || text.find(value) == std::string::npos) continue;
      ++leg->secret_leaks;
      if (leg->leak_examples.size() < 10) leg->leak_examples.push_back(recon::StrCat(where, " holds ", what));
    }
  }
}

class Leg {
 public:
  Leg(const SoakOptions& o, std::string name, bool faults) : o_(o), faults_(faults) {
    leg_.name = std::move(name);
  }

  absl::StatusOr<SoakLeg> Run() {
    auto t0 = Clock::now();
    fs::path dir = fs::path(o_.dir) / leg_.name;
    std::error_code ec;
    fs::remove_all(dir, ec);
    fs::create_directories(dir, ec);
    if (ec) return absl::InternalError(recon::StrCat(dir.string(), ": ", ec.message()));

    sim::Scenario scenario = BuildSoakScenario(o_.workload);
    std::string domains = o_.domains;
    if (domains.empty()) {
      domains = o_.workload.samples_inventory.empty() ? "disconnected" : "disconnected,samples";
      if (o_.olm) domains += ",olm";
      if (o_.workload.aro) domains += ",aro";
    }
    auto resources = o_.domain_resources(domains);
    if (!resources.ok()) return resources.status();
    std::vector<engine::ResourceType> types;
    std::set<std::string> watched;
    // Through ARM the agent reads the Azure objects by polling, not watching.
    const bool arm_mode = o_.workload.aro && o_.workload.aro_arm;
    for (const auto& u : *resources) {
      types.push_back(u.type);
      if (arm_mode && u.type.group == "network.azure.com") continue;
      if (std::find(u.verbs.begin(), u.verbs.end(), "watch") != u.verbs.end())
        watched.insert(recon::StrCat(u.type.group, "/", u.type.kind));
    }
    sim::ServeOptions so;
    so.speed = o_.speed;
    so.history = 20000;
    if (faults_) {
      scenario.faults.drop_watch = o_.drop_watch;
      scenario.faults.delay_watch = o_.delay_watch;
      scenario.faults.delay_ns = o_.delay_ns;
      so.write_faults = o_.write_faults;
      so.fault_seed = o_.workload.seed;
    }
    // OLM's install step runs in the cluster, beside the agent's reducer.
    fs::path catalog = dir / "catalog";
    if (o_.olm) {
      so.controller = SoakOlmController(o_.olm);
      fs::path before = dir / "catalog-before";
      for (const auto& [path, text] : o_.olm->before) {
        fs::create_directories((before / path).parent_path(), ec);
        std::ofstream(before / path, std::ios::binary) << text;
      }
      fs::create_directory_symlink(fs::absolute(before), catalog, ec);
      if (ec) return absl::InternalError(recon::StrCat(catalog.string(), ": ", ec.message()));
    }
    auto server = sim::ApiServer::Start(scenario, so, types);
    if (!server.ok()) return server.status();
    sim::ApiServer& srv = **server;
    std::unique_ptr<sim::ArmServer> arm;
    if (arm_mode) {
      auto a = sim::ArmServer::Start(srv, sim::ArmServeOptions{});
      if (!a.ok()) return a.status();
      arm = std::move(*a);
      arm_ = arm.get();
      leg_.arm = true;
    }

    std::string kubeconfig = (dir / "kubeconfig").string();
    std::ofstream(kubeconfig)
        << "apiVersion: v1\nkind: Config\ncurrent-context: sim\n"
        << "clusters: [{name: sim, cluster: {server: \"" << srv.url() << "\"}}]\n"
        << "users: [{name: u, user: {}}]\n"
        << "contexts: [{name: sim, context: {cluster: sim, user: u, namespace: default}}]\n";
    metrics_port_ = FreePort();
    args_ = {o_.recon_binary,
             "agent",
             "--cluster",
             kubeconfig,
             "--store",
             (dir / "store").string(),
             "--domains",
             domains,
             "--no-leader-election",
             "--qps",
             "0",
             "--queue-qps",
             "0",
             "--port",
             std::to_string(metrics_port_),
             "--probe-via",
             srv.url()};
    if (arm) {
      for (std::string a : {std::string("--azure"), std::string("--arm-endpoint"), arm->url(),
                            std::string("--aad-endpoint"), arm->url()})
        args_.push_back(std::move(a));
    }
    for (auto it = scenario.facts.begin(); it != scenario.facts.end(); ++it) {
      args_.push_back("--fact");
      args_.push_back(
          recon::StrCat(it.key(), "=", it->is_string() ? it->get<std::string>() : engine::Dump(*it)));
    }
    for (const auto& [k, v] : scenario.options) {
      if (!domains.empty() && k.rfind("samples.", 0) == 0 && domains.find("samples") == std::string::npos)
        continue;
      args_.push_back("--set");
      args_.push_back(recon::StrCat(k, "=", v));
    }
    if (o_.olm) {
      args_.push_back("--catalog");
      args_.push_back(
          recon::StrCat(kSoakCatalogNamespace, "/", kSoakCatalogName, "=", fs::absolute(catalog).string()));
      args_.push_back("--catalog-poll");
      args_.push_back("1s");
    }
    if (!o_.workload.samples_inventory.empty() && domains.find("samples") != std::string::npos) {
      args_.push_back("--set");
      args_.push_back(
          recon::StrCat("samples.inventory=", fs::absolute(o_.workload.samples_inventory).string()));
    }
    log_ = (dir / "agent.log").string();

    int64_t last_edit_ns = scenario.edits.empty() ? 0 : scenario.edits.back().at_ns;
    double duration_s = static_cast<double>(last_edit_ns) / 1e9 / o_.speed;
    double rotate_s = 0;
    for (const auto& e : scenario.edits)
      if (engine::GetString(e.object, {"kind"}) == "Secret" && e.path == "data.azure_client_secret")
        rotate_s = static_cast<double>(e.at_ns) / 1e9 / o_.speed;
    std::vector<Fault> faults = faults_ ? DrawFaults(o_, duration_s, rotate_s) : std::vector<Fault>{};

    auto start = Clock::now();
    pid_ = SpawnLogged(args_, log_);
    segment_start_ = Clock::now();
    size_t next = 0;
    bool catalog_updated = !o_.olm;
    while (SecondsSince(start) < duration_s) {
      Sample();
      if (!catalog_updated && SecondsSince(start) >= o_.catalog_update_at * duration_s) {
        // The catalog's update: the directory the agent polls now holds
        // the real catalog (a symlink swapped in one rename).
        catalog_updated = true;
        fs::path next_link = dir / "catalog.next";
        fs::remove(next_link, ec);
        fs::create_directory_symlink(fs::absolute(o_.olm->dir), next_link, ec);
        if (!ec) fs::rename(next_link, catalog, ec);
        if (ec) return absl::InternalError(recon::StrCat(catalog.string(), ": ", ec.message()));
      }
      while (next < faults.size() && SecondsSince(start) >= faults[next].at * duration_s) {
        Inject(srv, faults[next++]);
      }
      if (!Alive(pid_)) return absl::InternalError(recon::StrCat("the agent exited early; see ", log_));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (arm) {
      // ARM down and AAD's early rotation end with the workload at the
      // latest (the API's outages, 409/429/500 and watch faults go on); the
      // 429s and 412s not used up yet and slow operations stay: they slow
      // the settle's repairs, not their outcome.
      arm->SetDown(false);
      arm->RotateSecret("");
    }
    // Converged: the agent's queue is empty and the servers saw no request
    // for quiet_ms (faults keep running: retries must still settle). An ARM
    // poll that found nothing new (every GET answered as the one before it)
    // is not work: the agent polls on its aro/subnets interval forever.
    auto activity = [&] {
      uint64_t n = srv.Stats().requests;
      if (arm) {
        sim::ArmStats a = arm->Stats();
        n += a.requests - a.unchanged_reads;
      }
      return n;
    };
    uint64_t requests = activity();
    auto quiet_since = Clock::now();
    auto settle_start = Clock::now();
    while (SecondsSince(settle_start) * 1000 < static_cast<double>(o_.settle_limit_ms)) {
      Sample();
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
    std::string metrics = arm ? LocalGet(metrics_port_, "/metrics") : "";
    kill(pid_, SIGTERM);
    leg_.agent_exit = WaitExit(pid_, 30);
    FinishRss();

    std::vector<std::string> tokens;
    if (arm) {
      leg_.arm_stats = arm->Stats();
      tokens = arm->IssuedTokens();
      arm_ = nullptr;
      arm->Stop();
    }
    leg_.server = srv.Stats();
    auto objects = srv.Objects();
    srv.Stop();
    std::map<std::string, std::string> state;
    for (const auto& [key, body] : objects) {
      if (key.rfind("coordination.k8s.io/Lease/", 0) == 0) continue;
      state[key] = body;
    }
    NormalizeOlmState(&state);
    for (const auto& [key, body] : state) leg_.final_state[key] = NormalizeForSoak(body);
    CheckLogAgainstCluster((dir / "store").string(), watched, objects, arm_mode, &leg_);
    {
      std::ofstream out(dir / "final-state.jsonl");
      for (const auto& [key, body] : leg_.final_state) out << body << "\n";
    }
    // Options come from the log's Cluster event, as the agent recorded them.
    std::vector<std::string> check = {o_.recon_binary, "replay",    "--store", (dir / "store").string(),
                                      "--check",       "--domains", domains};
    leg_.replay_check_exit = WaitExit(SpawnLogged(check, (dir / "replay-check.log").string()), 600);
    if (arm_mode) CheckNoSecrets(o_, dir, tokens, metrics, &leg_);
    leg_.seconds = SecondsSince(t0);
    return leg_;
  }

 private:
  void Inject(sim::ApiServer& srv, const Fault& f) {
    switch (f.kind) {
      case Fault::kKill:
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
        ++leg_.kills;
        std::this_thread::sleep_for(std::chrono::milliseconds(f.ms));
        pid_ = SpawnLogged(args_, log_);
        segment_start_ = Clock::now();
        rss_.clear();
        break;
      case Fault::kOutage:
        srv.Unavailable(f.ms);
        break;
      case Fault::kDropWatches:
        srv.DropWatches();
        break;
      case Fault::kCompact:
        srv.Compact();
        break;
      default:
        InjectArm(f);
        break;
    }
  }

  void InjectArm(const Fault& f) {
    if (arm_ == nullptr) return;
    switch (f.kind) {
      case Fault::kArmThrottle:
        arm_->Throttle(f.count, f.retry_s);
        break;
      case Fault::kArmStaleEtags:
        arm_->StaleEtags(f.count);
        break;
      case Fault::kArmSlowAsync:
        arm_->SlowAsync(f.count);
        break;
      case Fault::kArmExpireTokens:
        arm_->ExpireTokens();
        break;
      case Fault::kArmDown:
        arm_->SetDown(true);
        break;
      case Fault::kArmUp:
        arm_->SetDown(false);
        return;
      case Fault::kAadAhead:
        // AAD has the new secret, the cluster's Secret not yet: the cached
        // tokens are revoked too, so the agent must ask with the old one.
        arm_->RotateSecret(kSoakRotatedSecret);
        arm_->ExpireTokens();
        break;
      default:
        return;
    }
    ++leg_.arm_faults;
  }

  void Sample() {
    auto now = Clock::now();
    if (!rss_.empty() && now - last_sample_ < std::chrono::milliseconds(250)) return;
    last_sample_ = now;
    int64_t kb = RssKb(pid_);
    if (kb <= 0) return;
    std::string m = LocalGet(metrics_port_, "/metrics");
    rss_.push_back({SecondsSince(segment_start_), kb, GaugeKb(m, "recon_store_memory_bytes"),
                    GaugeKb(m, "recon_heap_in_use_bytes")});
  }

  // Growth over the second half of the final agent's run. "At mid" and
  // "at end" are means over 5% of the run (around the middle, and its
  // last 5%): memtables fill and flush in a sawtooth of tens of MB, which
  // single samples would turn into noise larger than the 5% checked.
  void FinishRss() {
    if (rss_.size() < 4) return;
    const double span = rss_.back().t;
    auto mean = [&](double from, double to, int64_t RssSample::*field) {
      int64_t sum = 0, n = 0;
      for (const auto& r : rss_) {
        if (r.t < from || r.t > to || r.*field < 0) continue;
        sum += r.*field;
        ++n;
      }
      if (n > 0) return sum / n;
      // A short run: the first sample at or after `from` (the last one else).
      auto at = std::lower_bound(rss_.begin(), rss_.end(), from,
                                 [](const RssSample& r, double t) { return r.t < t; });
      return (at == rss_.end() ? rss_.back() : *at).*field;
    };
    const double mid_from = span * 0.475, mid_to = span * 0.525, end_from = span * 0.95;
    leg_.rss_mid_kb = mean(mid_from, mid_to, &RssSample::kb);
    leg_.rss_end_kb = mean(end_from, span, &RssSample::kb);
    leg_.store_mid_kb = mean(mid_from, mid_to, &RssSample::store_kb);
    leg_.store_end_kb = mean(end_from, span, &RssSample::store_kb);
    leg_.heap_mid_kb = mean(mid_from, mid_to, &RssSample::heap_kb);
    leg_.heap_end_kb = mean(end_from, span, &RssSample::heap_kb);
    // The final agent's memory over time, for a closer look.
    std::ofstream tsv(fs::path(log_).parent_path() / "rss.tsv");
    tsv << "seconds\trss_kb\tstore_kb\theap_kb\n";
    for (const auto& r : rss_) tsv << r.t << '\t' << r.kb << '\t' << r.store_kb << '\t' << r.heap_kb << '\n';
    for (const auto& r : rss_) leg_.rss_max_kb = std::max(leg_.rss_max_kb, r.kb);
    if (leg_.rss_mid_kb > 0)
      leg_.rss_growth =
          static_cast<double>(leg_.rss_end_kb - leg_.rss_mid_kb) / static_cast<double>(leg_.rss_mid_kb);
  }

  const SoakOptions& o_;
  bool faults_;
  sim::ArmServer* arm_ = nullptr;  // --aro-arm: the simulated ARM, while it runs
  SoakLeg leg_;
  std::vector<std::string> args_;
  std::string log_;
  int metrics_port_ = 0;
  pid_t pid_ = -1;
  Clock::time_point segment_start_, last_sample_;
  struct RssSample {
    double t;          // seconds into the segment
    int64_t kb;        // the agent's RSS
    int64_t store_kb;  // of which its event store's memory (-1: not known)
    int64_t heap_kb;   // malloc'd and not freed (-1: not known)
  };
  std::vector<RssSample> rss_;
};

void Expect(bool ok, std::vector<std::string>* failures, std::string what) {
  if (!ok) failures->push_back(std::move(what));
}

void CheckLeg(const SoakOptions& o, const SoakLeg& l, std::vector<std::string>* f) {
  const std::string& n = l.name;
  Expect(l.converged, f, recon::StrCat(n, ": did not converge within ", o.settle_limit_ms / 1000, " s"));
  Expect(l.agent_exit == 0, f, recon::StrCat(n, ": the agent's SIGTERM exit was ", l.agent_exit));
  Expect(l.replay_check_exit == 0, f,
         recon::StrCat(n, ": replay --check exited ", l.replay_check_exit, " (replay-check.log)"));
  Expect(l.server.actions_applied_twice == 0, f,
         recon::StrCat(n, ": ", l.server.actions_applied_twice, " actions applied twice"));
  Expect(l.log_mismatches == 0, f,
         recon::StrCat(n, ": ", l.log_mismatches, " objects where the log and the cluster disagree"));
  Expect(l.secret_leaks == 0, f,
         recon::StrCat(n, ": ", l.secret_leaks,
                       " client secrets or access tokens in the agent's output, its "
                       "log export or /metrics"));
  Expect(l.rss_growth < o.rss_limit, f,
         recon::StrCat(n, ": RSS grew ", static_cast<int>(l.rss_growth * 1000) / 10.0,
                       "% over the final agent's second half"));
}

}  // namespace

namespace {

struct Difference {
  std::string path;
  const Json* a;  // null: absent
  const Json* b;
};

void Differences(const Json* a, const Json* b, const std::string& path, std::vector<Difference>* out) {
  if (out->size() >= 8 || (a != nullptr && b != nullptr && *a == *b)) return;
  if (a != nullptr && b != nullptr && a->is_object() && b->is_object()) {
    std::set<std::string> keys;
    for (auto it = a->begin(); it != a->end(); ++it) keys.insert(it.key());
    for (auto it = b->begin(); it != b->end(); ++it) keys.insert(it.key());
    for (const auto& k : keys) {
      auto ia = a->find(k), ib = b->find(k);
      Differences(ia == a->end() ? nullptr : &*ia, ib == b->end() ? nullptr : &*ib,
                  recon::StrCat(path, ".", k), out);
    }
    return;
  }
  if (a != nullptr && b != nullptr && a->is_array() && b->is_array() && a->size() == b->size()) {
    for (size_t i = 0; i < a->size(); ++i)
      Differences(&(*a)[i], &(*b)[i], recon::StrCat(path, "[", i, "]"), out);
    return;
  }
  out->push_back({path.empty() ? "." : path, a, b});
}

std::string Shown(const Json* j) {
  if (j == nullptr) return "(absent)";
  std::string s = engine::Dump(*j);
  return s.size() > 200 ? recon::StrCat(s.substr(0, 200), "...") : s;
}

}  // namespace

std::string JsonDifferences(std::string_view a_json, std::string_view b_json, std::string_view a_name,
                            std::string_view b_name) {
  auto a = engine::ParseJson(a_json), b = engine::ParseJson(b_json);
  if (!a.ok() || !b.ok())
    return recon::StrCat("\n    ", a_name, " ", a_json.substr(0, 300), "\n    ", b_name, " ",
                         b_json.substr(0, 300));
  std::vector<Difference> diffs;
  Differences(&*a, &*b, "", &diffs);
  std::string out;
  for (const auto& d : diffs)
    recon::StrAppend(&out, "\n    ", d.path, ": ", a_name, " ", Shown(d.a), " | ", b_name, " ", Shown(d.b));
  return out;
}

std::string NormalizeForSoak(std::string_view object_json) {
  auto j = engine::ParseJson(object_json);
  if (!j.ok()) return std::string(object_json);
  if (auto md = j->find("metadata"); md != j->end() && md->is_object()) {
    for (const char* k : {"resourceVersion", "uid", "creationTimestamp", "generation", "managedFields"})
      md->erase(k);
    if (auto refs = md->find("ownerReferences"); refs != md->end() && refs->is_array())
      for (auto& r : *refs)
        if (r.is_object()) r.erase("uid");
  }
  // An imagestream tag's status keeps every image it was imported from,
  // newest first: which of the earlier ones are there depends on which
  // imports finished before the spec moved on (a registry override set and
  // removed while the agent was down imports nothing). The newest item is
  // the tag's state; the rest is history.
  if (engine::GetString(*j, {"kind"}) == "ImageStream") {
    if (auto st = j->find("status"); st != j->end() && st->is_object()) {
      if (auto tags = st->find("tags"); tags != st->end() && tags->is_array()) {
        for (auto& t : *tags) {
          if (!t.is_object()) continue;
          auto items = t.find("items");
          if (items != t.end() && items->is_array() && items->size() > 1)
            items->erase(items->begin() + 1, items->end());
        }
      }
    }
  }
  // Which CSV an operator's CSV replaces is the one installed when its plan
  // was resolved: history, like the plans themselves (NormalizeOlmState).
  if (engine::GetString(*j, {"kind"}) == "ClusterServiceVersion") {
    if (auto sp = j->find("spec"); sp != j->end() && sp->is_object()) sp->erase("replaces");
  }
  // Times come from when things happened, generations from how many writes
  // it took: both differ between runs that end in the same state.
  SortConditions(*j);
  DropKeys(*j, {"lastTransitionTime", "lastUpdateTime", "lastHeartbeatTime", "lastSyncTimestamp", "created",
                "lastUpdated", "generation", "observedGeneration",
                // aro's Cluster: when the subnets controller last PUT an NSG.
                "aro.openshift.io/lastSubnetReconcileTimestamp",
                // ARM's own progress on a subnet's service endpoint: an endpoint
                // the operator added back has none in the sim.
                "provisioningState"});
  // An annotations map emptied by the line above says nothing either.
  if (auto md = j->find("metadata"); md != j->end() && md->is_object()) {
    if (auto an = md->find("annotations"); an != md->end() && an->is_object() && an->empty()) md->erase(an);
  }
  // Key order follows who wrote a field first: compare sorted.
  return nlohmann::json::parse(engine::Dump(*j)).dump();
}

absl::StatusOr<SoakReport> RunSoak(const SoakOptions& o) {
  // The API server lives in this process: a write to the socket of an agent
  // just SIGKILLed must fail with EPIPE, not end the soak.
  signal(SIGPIPE, SIG_IGN);
  SoakReport r;
  if (o.baseline) {
    auto b = Leg(o, "baseline", false).Run();
    if (!b.ok()) return b.status();
    r.baseline = std::move(*b);
  }
  auto f = Leg(o, "faults", true).Run();
  if (!f.ok()) return f.status();
  r.faults = std::move(*f);

  if (o.baseline) {
    CheckLeg(o, r.baseline, &r.failures);
    r.compared = true;
    std::set<std::string> keys;
    for (const auto& [k, v] : r.baseline.final_state) keys.insert(k);
    for (const auto& [k, v] : r.faults.final_state) keys.insert(k);
    for (const auto& k : keys) {
      auto a = r.baseline.final_state.find(k), b = r.faults.final_state.find(k);
      std::string why;
      if (a == r.baseline.final_state.end()) {
        why = "only after the faulty run";
      } else if (b == r.faults.final_state.end()) {
        why = "only after the fault-free run";
      } else if (a->second != b->second) {
        why = recon::StrCat("differs:", JsonDifferences(a->second, b->second, "fault-free", "faulty"));
      } else {
        continue;
      }
      ++r.state_differences;
      if (r.difference_examples.size() < 10) r.difference_examples.push_back(recon::StrCat(k, ": ", why));
    }
    Expect(r.state_differences == 0, &r.failures,
           recon::StrCat(r.state_differences, " objects differ from the fault-free run's final state"));
  }
  CheckLeg(o, r.faults, &r.failures);
  return r;
}

}  // namespace recon::soak
