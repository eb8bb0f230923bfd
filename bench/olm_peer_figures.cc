#include "bench/olm_peer_figures.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/strings.h"
#include "bench/olm_figures.h"
#include "domains/olm/resolve/resolver.h"
#include "engine/json.h"
#include "soak/child_process.h"

namespace recon::bench {
namespace {

using engine::Json;
using Clock = std::chrono::steady_clock;

// One side's answer for one subscription: "ok a,b", "unsat" or "error".
std::string Outcome(const std::string& status, std::vector<std::string> operators) {
  std::sort(operators.begin(), operators.end());
  return status == "ok" ? StrCat("ok [", absl::StrJoin(operators, ", "), "]") : status;
}

olm::ResolveInput InstallOf(const std::shared_ptr<const olm::CatalogIndex>& index, const OlmTarget& t,
                            uint64_t i) {
  olm::ResolveInput in;
  in.ns = OlmNamespace(i);
  in.catalogs.push_back({kOlmCatalog, kOlmCatalogNamespace, 0, index});
  in.subscriptions.push_back(
      {t.package, t.package, t.channel, kOlmCatalog, kOlmCatalogNamespace, t.start, ""});
  return in;
}

std::string OutcomeOf(const absl::StatusOr<olm::ResolveResult>& r) {
  if (!r.ok()) return absl::IsFailedPrecondition(r.status()) ? "unsat" : "error";
  std::vector<std::string> csvs;
  for (const auto& op : r->operators) csvs.push_back(op.csv);
  return Outcome("ok", std::move(csvs));
}

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * (v.size() - 1) + 0.5)];
}

// recon's side: best of 5 rounds; the answers of the last.
void RaceRecon(const std::shared_ptr<const olm::CatalogIndex>& index, const std::vector<OlmTarget>& pool,
               uint64_t subscriptions, PeerRace* race, std::vector<std::string>* outcomes) {
  double best_s = 0;
  for (int round = 0; round < 5; ++round) {
    std::vector<double> ms(subscriptions);
    outcomes->assign(subscriptions, "");
    auto t0 = Clock::now();
    for (uint64_t i = 0; i < subscriptions; ++i) {
      olm::ResolveInput in = InstallOf(index, pool[i % pool.size()], i);
      auto s0 = Clock::now();
      auto r = olm::Resolve(in);
      ms[i] = std::chrono::duration<double, std::milli>(Clock::now() - s0).count();
      (*outcomes)[i] = OutcomeOf(r);
    }
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (round == 0 || s < best_s) {
      best_s = s;
      race->recon_p50_ms = Quantile(ms, 0.5);
      race->recon_p99_ms = Quantile(ms, 0.99);
    }
  }
  race->recon_per_s = best_s > 0 ? subscriptions / best_s : 0;
}

absl::Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) return absl::UnavailableError(StrCat(path, ": cannot write"));
  return absl::OkStatus();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The last `lines` lines of `text` ("(no output)" if there is none).
std::string Tail(const std::string& text, size_t lines) {
  std::vector<std::string> all = absl::StrSplit(text, '\n', absl::SkipEmpty());
  if (all.empty()) return "(no output)";
  const size_t from = all.size() > lines ? all.size() - lines : 0;
  return absl::StrJoin(all.begin() + from, all.end(), "\n");
}

double Number(const Json& j, const char* key) {
  const Json& v = engine::Path(j, {key});
  return v.is_number() ? v.get<double>() : 0;
}

// Reads the peer's summary and results into `race`, comparing each answer
// with recon's.
absl::Status ReadPeer(const std::string& dir, const std::vector<OlmTarget>& pool,
                      const std::vector<std::string>& recon, PeerRace* race) {
  auto summary = engine::ParseJson(ReadFile(dir + "/summary.json"));
  if (!summary.ok() || !summary->is_object())
    return absl::DataLossError(StrCat(dir, "/summary.json: expected a JSON object from the peer"));
  if (!engine::Path(*summary, {"resolutions_per_s"}).is_number())
    return absl::DataLossError(StrCat(dir, "/summary.json: \"resolutions_per_s\": expected a number"));
  race->peer = engine::GetString(*summary, {"peer"});
  if (race->peer.empty()) race->peer = "peer";
  race->peer_per_s = Number(*summary, "resolutions_per_s");
  race->peer_p50_ms = Number(*summary, "p50_ms");
  race->peer_p99_ms = Number(*summary, "p99_ms");
  race->peer_peak_rss_mb = Number(*summary, "peak_rss_mb");
  race->gomaxprocs = static_cast<int>(Number(*summary, "gomaxprocs"));
  std::ifstream in(dir + "/results.jsonl");
  std::string line;
  uint64_t n = 0;
  while (std::getline(in, line)) {
    const std::string where = StrCat(dir, "/results.jsonl:", n + 1);
    if (n == recon.size()) return absl::DataLossError(StrCat(where, ": more lines than subscriptions"));
    auto r = engine::ParseJson(line);
    if (!r.ok()) return absl::DataLossError(StrCat(where, ": ", r.status().message()));
    const std::string status = engine::GetString(*r, {"status"});
    if (status != "ok" && status != "unsat" && status != "error")
      return absl::DataLossError(
          StrCat(where, ": \"status\": expected ok, unsat or error, got \"", status, "\""));
    std::vector<std::string> ops;
    const Json& arr = engine::Path(*r, {"operators"});
    if (arr.is_array()) {
      for (const Json& o : arr)
        if (o.is_string()) ops.push_back(o.get<std::string>());
    }
    (status == "ok" ? race->peer_ok : status == "unsat" ? race->peer_unsat : race->peer_error) += 1;
    const std::string peer = Outcome(status, std::move(ops));
    if (peer == recon[n]) {
      ++race->agree;
    } else if (++race->differ_count <= 5) {
      race->differ.push_back(
          StrCat(OlmNamespace(n), "/", pool[n % pool.size()].package, ": recon ", recon[n], ", peer ", peer));
    }
    ++n;
  }
  if (n != recon.size())
    return absl::DataLossError(
        StrCat(dir, "/results.jsonl: ", n, " lines for ", recon.size(), " subscriptions"));
  return absl::OkStatus();
}

}  // namespace

std::string PeerRace::ToJson() const {
  Json j = {{"peer", peer},
            {"gomaxprocs", gomaxprocs},
            {"subscriptions", subscriptions},
            {"peer_resolutions_per_s", peer_per_s},
            {"peer_p50_ms", peer_p50_ms},
            {"peer_p99_ms", peer_p99_ms},
            {"peer_peak_rss_mb", peer_peak_rss_mb},
            {"peer_ok", peer_ok},
            {"peer_unsat", peer_unsat},
            {"peer_error", peer_error},
            {"recon_resolutions_per_s", recon_per_s},
            {"recon_p50_ms", recon_p50_ms},
            {"recon_p99_ms", recon_p99_ms},
            {"recon_over_peer", ratio()},
            {"answers_agree", agree},
            {"answers_differ", differ_count},
            {"differences", differ}};
  return engine::Dump(j);
}

absl::StatusOr<PeerRace> RaceResolver(const std::string& peer, const std::string& catalog_dir,
                                      uint64_t subscriptions) {
  if (access(peer.c_str(), X_OK) != 0 || std::filesystem::is_directory(peer))
    return absl::NotFoundError(
        StrCat(peer, ": not an executable file (build one with bench/peers/olm-resolver/build.sh)"));
  auto files = ReadCatalogDir(catalog_dir);
  if (!files.ok()) return files.status();
  auto index = olm::CatalogIndex::Load(*files);
  if (!index.ok()) return index.status();
  const std::vector<OlmTarget> pool = OlmTargets(**index);
  if (pool.empty()) return absl::FailedPreconditionError("no package has a default channel with 2+ entries");

  std::string dir = (std::filesystem::temp_directory_path() / "recon-peer-XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr)
    return absl::UnavailableError(StrCat(dir, ": cannot make a scratch directory"));
  std::string subs;
  for (uint64_t i = 0; i < subscriptions; ++i) {
    const OlmTarget& t = pool[i % pool.size()];
    subs += engine::Dump(Json{{"namespace", OlmNamespace(i)},
                              {"package", t.package},
                              {"channel", t.channel},
                              {"startingCSV", t.start}});
    subs += '\n';
  }
  if (auto s = WriteFile(dir + "/subscriptions.jsonl", subs); !s.ok()) return s;

  PeerRace race;
  race.subscriptions = subscriptions;
  const std::string log = dir + "/peer.log";
  pid_t pid =
      soak::SpawnLogged({peer, "-catalog", catalog_dir, "-subscriptions", dir + "/subscriptions.jsonl",
                         "-results", dir + "/results.jsonl", "-summary", dir + "/summary.json",
                         "-catalog-name", kOlmCatalog, "-catalog-namespace", kOlmCatalogNamespace},
                        log);
  if (pid < 0) return absl::UnavailableError(StrCat(peer, ": cannot start"));
  // OLM's resolver took 15 ms per resolution at p50 and 560 ms at p99 on
  // community-derived: a second each is a runaway's bound, not a budget.
  const int code = soak::WaitExit(pid, 120.0 + static_cast<double>(subscriptions));
  if (code != 0) {
    return absl::AbortedError(StrCat(peer, code < 0 ? " did not finish in time" : StrCat(" exited ", code),
                                     " (its output, in ", log, "):\n", Tail(ReadFile(log), 10)));
  }
  std::vector<std::string> recon;
  RaceRecon(*index, pool, subscriptions, &race, &recon);
  if (auto s = ReadPeer(dir, pool, recon, &race); !s.ok()) return s;
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return race;
}

}  // namespace recon::bench
