// Replays a log and builds the timeline `recon explain` prints: every
// condition transition (from updateStatus actions) with the seq and time
// that caused it, what each event made a domain do, and each domain's own
// notes (Reducer::Explain).
#ifndef RECON_ENGINE_EXPLAIN_H_
#define RECON_ENGINE_EXPLAIN_H_

#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "engine/engine.h"
#include "engine/timeline.h"
#include "store/event_store.h"

namespace recon::engine {

// Tracks status.conditions per object across updateStatus actions.
class ConditionTracker {
 public:
  // Adds an entry for every condition whose status, reason or message changed.
  void Observe(const Event& cause, const records::ActionRecord& action, Timeline& out);

 private:
  // object → condition type → (status, reason, message)
  std::map<std::string, std::map<std::string, std::tuple<std::string, std::string, std::string>>> last_;
};

class Explainer {
 public:
  explicit Explainer(Engine& engine, std::string domain_filter = "")
      : engine_(engine), filter_(std::move(domain_filter)) {
    engine_.set_collect_notes(true);
  }
  absl::Status Step(const Event& event);
  const Timeline& timeline() const { return timeline_; }

 private:
  Engine& engine_;
  std::string filter_;
  Timeline timeline_;
  ConditionTracker conditions_;
};

absl::StatusOr<Timeline> ExplainRecords(Engine& engine, std::span<const records::EventRecord> events,
                                        const std::string& domain);
absl::StatusOr<Timeline> ExplainStore(Engine& engine, store::EventStore& st, const std::string& domain);

// Renderings.
std::string TimelineText(const Timeline& t);
std::string TimelineJson(const Timeline& t);
// A Mermaid gantt-like picture of state spans per subject.
std::string TimelineMermaid(const Timeline& t);

}  // namespace recon::engine

#endif  // RECON_ENGINE_EXPLAIN_H_
