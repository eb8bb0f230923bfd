#include "bench/samples_figures.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/strings.h"
#include "domains/samples/reducer.h"
#include "engine/engine.h"
#include "engine/json.h"
#include "store/memory_store.h"

// The simulated cluster is its own library (adapters/sim); without it the
// bench says so instead of failing to build.
#if __has_include("adapters/sim/runner.h")
#include "adapters/sim/runner.h"
#define RECON_BENCH_HAVE_SIM 1
#endif

namespace recon::bench {
namespace {

using engine::Json;
namespace fs = std::filesystem;

double Ms(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

#ifdef RECON_BENCH_HAVE_SIM
// An empty cluster with the namespaces the operator writes into; every
// import succeeds after the sim's default latency.
sim::Scenario EmptyCluster() {
  sim::Scenario s;
  s.name = "bench-samples";
  s.seed = 1;
  s.start_ns = 1'795'000'000LL * 1'000'000'000;  // fixed: runs are comparable
  s.facts = Json{{"architecture", "x86_64"}, {"ipv6", false}, {"disconnected", false}, {"version", "4.16.0"}};
  for (const char* ns : {"openshift", "openshift-cluster-samples-operator"}) {
    s.objects.push_back(Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  }
  return s;
}

absl::StatusOr<SamplesRun> RunOnce(const records::ContentFiles& files, const std::string& label) {
  std::vector<std::unique_ptr<engine::Reducer>> reducers;
  reducers.push_back(samples::MakeReducer());
  engine::Engine engine(std::move(reducers));
  double reduce_s = 0;
  engine.set_reduce_observer([&](std::string_view, double s) { reduce_s += s; });
  store::MemoryStore st;
  sim::Scenario scenario = EmptyCluster();
  sim::Simulator simulator(scenario);
  sim::RunOptions run;
  run.until_converged = true;
  run.max_time_ns = 24 * 3600LL * 1'000'000'000;
  run.options = {{"samples.inventory", label}};
  run.load_directory = [&files](const std::string&) -> absl::StatusOr<records::ContentFiles> {
    return files;
  };
  auto t0 = std::chrono::steady_clock::now();
  auto summary = sim::RunScenario(scenario, simulator, engine, runtime::RunOnNewLog(engine, st), run);
  auto wall = std::chrono::steady_clock::now() - t0;
  if (!summary.ok()) return summary.status();
  SamplesRun r;
  r.label = label;
  r.events = summary->events;
  r.actions = summary->actions;
  r.writes = summary->actions_by_verb_kind;
  r.converged = summary->converged;
  r.virtual_s = double(summary->end_ns - summary->start_ns) / 1e9;
  r.engine_ms_to_converge = Ms(wall);
  r.reduce_ms = reduce_s * 1000;
  return r;
}
#endif

void CountObjects(const records::ContentFiles& files, SamplesRun& r) {
  for (const auto& [path, text] : files) {
    fs::path p(path);
    std::string parent = p.parent_path().filename().string();
    if (parent.ends_with("imagestreams")) ++r.imagestreams;
    if (parent.ends_with("templates")) ++r.templates;
  }
}

}  // namespace

std::string SamplesFigures::ToJson() const {
  Json j = Json::object();
  j["inventory"] = inventory;
  if (!skipped.empty()) {
    j["skipped"] = skipped;
    return engine::Dump(j);
  }
  j["rounds"] = rounds;
  j["timing"] = "wall clock of the in-process loop (sim + memory store + engine), best of rounds";
  Json runs_json = Json::array();
  for (const auto& r : runs) {
    runs_json.push_back(Json{{"label", r.label},
                             {"imagestreams", r.imagestreams},
                             {"templates", r.templates},
                             {"converged", r.converged},
                             {"events", r.events},
                             {"actions", r.actions},
                             {"writes", r.writes},
                             {"virtual_s", r.virtual_s},
                             {"engine_ms_to_converge", r.engine_ms_to_converge},
                             {"reduce_ms", r.reduce_ms},
                             {"events_per_s", r.events_per_s},
                             {"actions_per_s", r.actions_per_s}});
  }
  j["runs"] = std::move(runs_json);
  return engine::Dump(j);
}

absl::StatusOr<records::ContentFiles> LoadInventoryDir(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return absl::NotFoundError(recon::StrCat(dir, ": not a directory"));
  records::ContentFiles files;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    std::ifstream in(it->path(), std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    if (!in && !in.eof()) return absl::InternalError(recon::StrCat(it->path().string(), ": cannot read"));
    files.emplace_back(fs::relative(it->path(), dir).generic_string(), buf.str());
  }
  if (ec) return absl::InternalError(recon::StrCat(dir, ": ", ec.message()));
  std::sort(files.begin(), files.end());
  return files;
}

absl::StatusOr<records::ContentFiles> ReplicateInventory(const records::ContentFiles& files, int factor) {
  records::ContentFiles out;
  out.reserve(files.size() * std::max(factor, 1));
  for (int i = 0; i < factor; ++i) {
    std::string suffix = i == 0 ? "" : recon::StrCat("-r", i);
    for (const auto& [path, text] : files) {
      size_t slash = path.find('/');
      std::string renamed =
          slash == std::string::npos ? path : path.substr(0, slash) + suffix + path.substr(slash);
      if (i == 0 || !path.ends_with(".json")) {
        if (i == 0) out.emplace_back(renamed, text);
        continue;
      }
      auto j = engine::ParseJson(text);
      if (!j.ok()) return absl::InvalidArgumentError(recon::StrCat(path, ": ", Sv(j.status().message())));
      if (j->is_object() && (*j)["metadata"].is_object() && (*j)["metadata"]["name"].is_string()) {
        (*j)["metadata"]["name"] = (*j)["metadata"]["name"].get<std::string>() + suffix;
      }
      out.emplace_back(std::move(renamed), engine::Dump(*j));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

absl::StatusOr<SamplesFigures> MeasureSamples(const std::string& dir, int scale, int rounds) {
  SamplesFigures f;
  f.inventory = dir;
  f.rounds = rounds;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return absl::NotFoundError(
        recon::StrCat("inventory ", dir, ": not a directory (the real one is datasets/samples/ocp-x86_64)"));
  }
#ifndef RECON_BENCH_HAVE_SIM
  f.skipped = "built without the simulated cluster (adapters/sim)";
  return f;
#else
  auto real = LoadInventoryDir(dir);
  if (!real.ok()) return real.status();
  std::vector<std::pair<std::string, records::ContentFiles>> inputs;
  inputs.emplace_back("base", *real);
  if (scale > 1) {
    auto scaled = ReplicateInventory(*real, scale);
    if (!scaled.ok()) return scaled.status();
    inputs.emplace_back(recon::StrCat("x", scale), std::move(*scaled));
  }
  for (const auto& [label, files] : inputs) {
    SamplesRun best;
    for (int round = 0; round < rounds; ++round) {
      auto r = RunOnce(files, label);
      if (!r.ok()) return r.status();
      if (round == 0 || r->engine_ms_to_converge < best.engine_ms_to_converge) best = *r;
    }
    CountObjects(files, best);
    double s = best.engine_ms_to_converge / 1000;
    best.events_per_s = s > 0 ? double(best.events) / s : 0;
    best.actions_per_s = s > 0 ? double(best.actions) / s : 0;
    f.runs.push_back(best);
  }
  return f;
#endif
}

}  // namespace recon::bench
