#include "adapters/sim/runner.h"

#include <cstdio>
#include <span>
#include <utility>

#include "adapters/sim/cluster_adapter.h"
#include "base/strings.h"
#include "engine/time_format.h"
#include "runtime/metrics.h"
#include "runtime/time_source.h"

namespace recon::sim {

std::string FormatDuration(int64_t ns) {
  if (ns < 0) return recon::StrCat("-", FormatDuration(-ns));
  int64_t ms = ns / 1'000'000;
  int64_t h = ms / 3'600'000, m = (ms / 60'000) % 60, s = (ms / 1000) % 60, frac = ms % 1000;
  std::string out;
  if (h) recon::StrAppend(&out, h, "h");
  if (h || m) recon::StrAppend(&out, m, "m");
  recon::StrAppend(&out, s);
  if (frac) {
    char buf[8];
    std::snprintf(buf, sizeof(buf), ".%03lld", static_cast<long long>(frac));
    std::string f = buf;
    while (f.back() == '0') f.pop_back();
    out += f;
  }
  out += "s";
  return out;
}

absl::StatusOr<std::vector<records::EventRecord>> BuildPreamble(const Scenario& scenario, Simulator& sim,
                                                                engine::Engine& engine,
                                                                const RunOptions& options) {
  std::vector<records::EventRecord> preamble;
  auto specs = engine.OptionSpecs();
  Json logged = Json::object();
  for (const auto& [key, value] : options.options) {
    auto spec = specs.find(key);
    if (spec != specs.end() && spec->second.directory_content) {
      if (!options.load_directory)
        return absl::InvalidArgumentError(recon::StrCat(key, ": cannot load directories"));
      auto files = options.load_directory(value);
      if (!files.ok()) {
        return absl::InvalidArgumentError(recon::StrCat(key, "=", value, ": ", Sv(files.status().message())));
      }
      records::EventRecord c;
      c.time_ns = sim.now();
      c.type = records::EventType::kContent;
      c.content_name = spec->second.content_name;
      c.content_digest = records::ContentDigest(*files);
      c.content_files = std::move(*files);
      logged[key] = c.content_digest;
      preamble.push_back(std::move(c));
      continue;
    }
    // Not applied here: the engine applies logged options when it reduces
    // the Cluster event below, exactly as a replay of this log will.
    logged[key] = value;
  }
  for (auto& e : sim.Start()) preamble.push_back(std::move(e));
  records::EventRecord cluster;
  cluster.time_ns = sim.now();
  cluster.type = records::EventType::kCluster;
  Json facts = scenario.facts;
  engine.AddOptionDefaults(logged);
  if (!logged.empty()) facts["options"] = logged;
  cluster.cluster_facts = engine::Dump(facts);
  preamble.push_back(std::move(cluster));
  return preamble;
}

absl::StatusOr<RunSummary> RunScenario(const Scenario& scenario, Simulator& sim, engine::Engine& engine,
                                       const runtime::RunFn& run, const RunOptions& options) {
  RunSummary summary;
  summary.start_ns = sim.now();
  // The agent's own runtime drives the simulated cluster (issue 20: one
  // dispatch path): the same append → reduce → work queue → adapter loop,
  // retries, backoff and unanswered-write handling as `recon agent`, on the
  // simulator's virtual clock, which jumps to the next due time instead of
  // waiting.
  SimClusterAdapter adapter(scenario, sim, engine, options);
  runtime::ManualTimeSource clock(sim.now());
  runtime::Metrics metrics;
  runtime::RuntimeOptions ro;
  ro.until_converged = options.until_converged;
  ro.max_time_ns = options.max_time_ns;
  ro.quiet_bursts = options.quiet_bursts;
  ro.fast_forward = [&clock](int64_t next) { clock.Set(next); };
  ro.redactor = options.redactor;
  ro.secret_table = options.secret_table;
  ro.on_reduced = [&summary](const engine::Event& e, std::span<const records::ActionRecord> actions) {
    if (summary.first_seq == 0) summary.first_seq = e.seq;
    summary.last_seq = e.seq;
    ++summary.events;
    summary.events_by_type[std::string(records::EventTypeName(e.type))]++;
    for (const auto& a : actions) {
      summary.actions_by_verb[a.verb]++;
      summary.actions_by_verb_kind[recon::StrCat(a.verb, " ", a.object.kind)]++;
      ++summary.actions;
    }
  };
  auto converged = run(adapter, clock, metrics, std::move(ro));
  if (!converged.ok()) return converged.status();
  summary.converged = *converged;
  summary.end_ns = sim.now();
  return summary;
}

std::string FormatSummary(const Scenario& scenario, const RunSummary& s, const Simulator& sim) {
  std::string out;
  recon::StrAppend(&out, "scenario ", scenario.name.empty() ? "(unnamed)" : scenario.name, ", seed ",
                   scenario.seed, "\n");
  if (s.converged) {
    recon::StrAppend(&out, "converged after ", FormatDuration(s.end_ns - s.start_ns), " of virtual time (",
                     engine::FormatRfc3339(s.end_ns), ")\n");
  } else {
    recon::StrAppend(&out, "NOT converged: stopped at ", FormatDuration(s.end_ns - s.start_ns),
                     " of virtual time with work pending\n");
  }
  auto counts = [](const std::map<std::string, uint64_t>& m) {
    std::string line;
    for (const auto& [k, v] : m) recon::StrAppend(&line, line.empty() ? "" : ", ", k, " ", v);
    return line;
  };
  recon::StrAppend(&out, "events  ", s.events, " (seq ", s.first_seq, "..", s.last_seq,
                   "): ", counts(s.events_by_type), "\n");
  recon::StrAppend(&out, "actions ", s.actions, ": ", counts(s.actions_by_verb), "\n");
  const SimStats& st = sim.stats();
  uint64_t failed = 0;
  for (const auto& [k, v] : st.results_failed) failed += v;
  if (failed) recon::StrAppend(&out, "failed writes: ", counts(st.results_failed), "\n");
  recon::StrAppend(&out, "imports ", st.imports_ok, " ok, ", st.imports_failed, " failed; user edits ",
                   st.edits_applied, " applied",
                   st.edits_failed ? recon::StrCat(", ", st.edits_failed, " failed") : "", "\n");
  if (st.injected_write_errors || st.watch_dropped || st.watch_delayed) {
    recon::StrAppend(&out, "faults: ", st.injected_write_errors, " write errors injected, ", st.watch_dropped,
                     " watch events dropped (", st.watch_resynced, " re-listed), ", st.watch_delayed,
                     " delayed\n");
  }
  for (const auto& w : st.warnings) recon::StrAppend(&out, "warning: ", w, "\n");
  recon::StrAppend(&out, "cluster: ", sim.objects().objects().size(), " objects\n");

  // The main objects: those named by the scenario, else everything with
  // top-level conditions (ImageStreams keep theirs per tag).
  std::vector<std::pair<ObjectKey, const Json*>> shown;
  for (const auto& [key, obj] : sim.objects().objects()) {
    bool wanted = false;
    if (!scenario.report.empty()) {
      for (const auto& r : scenario.report)
        wanted |= r.kind == key.kind && r.name == key.name && r.ns == key.ns;
    } else {
      const Json& c = engine::Path(obj, {"status", "conditions"});
      wanted = c.is_array() && !c.empty();
    }
    if (wanted) shown.emplace_back(key, &obj);
  }
  constexpr size_t kMaxShown = 8;
  for (size_t i = 0; i < shown.size() && i < kMaxShown; ++i) {
    recon::StrAppend(&out, KeyString(shown[i].first), ":\n");
    const Json& conds = engine::Path(*shown[i].second, {"status", "conditions"});
    if (!conds.is_array() || conds.empty()) recon::StrAppend(&out, "  (no conditions)\n");
    for (size_t c = 0; conds.is_array() && c < conds.size(); ++c) {
      std::string reason = engine::GetString(conds[c], {"reason"});
      std::string message = engine::GetString(conds[c], {"message"});
      if (message.size() > 60) message = message.substr(0, 57) + "...";
      recon::StrAppend(&out, "  ", engine::GetString(conds[c], {"type"}), "=",
                       engine::GetString(conds[c], {"status"}),
                       reason.empty() ? "" : recon::StrCat(" ", reason),
                       message.empty() ? "" : recon::StrCat(": ", message), "\n");
    }
  }
  if (shown.size() > kMaxShown) recon::StrAppend(&out, "... and ", shown.size() - kMaxShown, " more\n");
  return out;
}

}  // namespace recon::sim
