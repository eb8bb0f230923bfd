#include "adapters/sim/runner.h"

#include <cstdio>
#include <set>
#include <utility>

#include "base/strings.h"
#include "engine/emit.h"
#include "engine/replay.h"
#include "engine/time_format.h"

namespace recon::sim {
namespace {

class Loop {
 public:
  Loop(Simulator& sim, engine::Engine& engine, store::EventStore& st, RunSummary& summary,
       engine::Redactor redactor, std::shared_ptr<engine::SecretTable> secrets)
      : sim_(sim),
        engine_(engine),
        st_(st),
        summary_(summary),
        redactor_(std::move(redactor)),
        secrets_(secrets ? std::move(secrets) : std::make_shared<engine::SecretTable>()) {
    redactor_.AddSensitiveFieldsOf(engine_.reducers());
    redactor_.set_secret_table(secrets_);
  }

  // Logs `events`, reduces them from the store and hands the actions to the
  // simulator.
  absl::Status Feed(std::vector<store::EventRecord> events) {
    if (events.empty()) return absl::OkStatus();
    if (auto s = redactor_.RedactAll(events); !s.ok()) return s;
    auto first = st_.Append(events);
    if (!first.ok()) return first.status();
    if (summary_.first_seq == 0) summary_.first_seq = *first;
    uint64_t last = *first + events.size() - 1;
    for (const auto& e : events) summary_.events_by_type[std::string(store::EventTypeName(e.type))]++;
    summary_.events += events.size();
    std::vector<store::ActionRecord> actions;
    auto sink = [&](const store::ActionRecord& a) { actions.push_back(a); };
    uint64_t before = engine_.last_seq();
    if (auto s = engine::ReplayStore(engine_, st_, last, sink, /*record=*/true); !s.ok()) return s;
    // Count events in a row whose only actions (if any) were setTimer.
    std::set<uint64_t> busy;
    for (const auto& a : actions) {
      if (a.verb != "setTimer") busy.insert(a.cause_seq);
    }
    for (uint64_t seq = before + 1; seq <= last; ++seq) quiet_ = busy.contains(seq) ? 0 : quiet_ + 1;
    summary_.last_seq = last;
    for (auto& a : actions) {
      summary_.actions_by_verb[a.verb]++;
      ++summary_.actions;
      // Real values only on the way into the simulated cluster; what was
      // recorded above keeps the markers.
      if (auto s = secrets_->Substitute(a); !s.ok()) {
        store::EventRecord r;
        r.time_ns = sim_.now();
        r.type = store::EventType::kActionResult;
        r.action_result.action = engine::ActionId(a.cause_seq, a.index);
        r.action_result.error = std::string(Sv(s.message()));
        refused_.push_back(std::move(r));
        continue;
      }
      sim_.Apply(a);
    }
    return absl::OkStatus();
  }

  int quiet() const { return quiet_; }
  // Failed results of actions not sent, to be logged next.
  std::vector<store::EventRecord> TakeRefused() { return std::exchange(refused_, {}); }

 private:
  Simulator& sim_;
  engine::Engine& engine_;
  store::EventStore& st_;
  RunSummary& summary_;
  engine::Redactor redactor_;
  std::shared_ptr<engine::SecretTable> secrets_;
  std::vector<store::EventRecord> refused_;
  int quiet_ = 0;
};

}  // namespace

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

absl::StatusOr<std::vector<store::EventRecord>> BuildPreamble(const Scenario& scenario, Simulator& sim,
                                                              engine::Engine& engine,
                                                              const RunOptions& options) {
  std::vector<store::EventRecord> preamble;
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
      store::EventRecord c;
      c.time_ns = sim.now();
      c.type = store::EventType::kContent;
      c.content_name = spec->second.content_name;
      c.content_digest = store::ContentDigest(*files);
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
  store::EventRecord cluster;
  cluster.time_ns = sim.now();
  cluster.type = store::EventType::kCluster;
  Json facts = scenario.facts;
  if (!logged.empty()) facts["options"] = logged;
  cluster.cluster_facts = engine::Dump(facts);
  preamble.push_back(std::move(cluster));
  return preamble;
}

absl::StatusOr<RunSummary> RunScenario(const Scenario& scenario, Simulator& sim, engine::Engine& engine,
                                       store::EventStore& st, const RunOptions& options) {
  RunSummary summary;
  summary.start_ns = sim.now();
  if (st.LastSeq() != 0) {
    return absl::FailedPreconditionError(recon::StrCat("the store already holds ", st.LastSeq(),
                                                       " events; a sim run starts from an empty log"));
  }
  // The preamble: inputs, the initial list, then the facts and options the
  // agent started with. Options live in the log so a replay needs no --set.
  auto preamble = BuildPreamble(scenario, sim, engine, options);
  if (!preamble.ok()) return preamble.status();

  Loop loop(sim, engine, st, summary,
            options.redactor ? *options.redactor : engine::Redactor::WithRandomKey(), options.secret_table);
  if (auto s = loop.Feed(std::move(*preamble)); !s.ok()) return s;
  int64_t deadline = summary.start_ns + options.max_time_ns;
  while (true) {
    if (auto refused = loop.TakeRefused(); !refused.empty()) {
      if (auto s = loop.Feed(std::move(refused)); !s.ok()) return s;
      continue;
    }
    if (options.until_converged && !sim.HasPendingWork() && loop.quiet() >= options.quiet_events) {
      summary.converged = true;
      break;
    }
    auto next = sim.NextTime();
    if (!next) {
      summary.converged = true;  // nothing left to happen at all
      break;
    }
    if (*next > deadline) break;
    if (auto s = loop.Feed(sim.Step()); !s.ok()) return s;
  }
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
