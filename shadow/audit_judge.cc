#include "shadow/audit_judge.h"

#include <algorithm>

namespace recon::shadow {

void AuditJudge::Observe(const engine::Event& event, std::span<const records::ActionRecord> actions) {
  // Event times never go back: an event stamped earlier than the one
  // before it (another source's clock) is taken as at the same time.
  event_times_.push_back(std::max(event.time_ns, event_times_.empty() ? event.time_ns : event_times_.back()));
  for (const auto& a : actions) {
    if (a.verb != "create" && a.verb != "update" && a.verb != "updateStatus" && a.verb != "delete") continue;
    PredictionRecord p;
    p.finding = PredictionOf(a, event.time_ns);
    auto body = engine::ParseJson(a.body);
    p.body = body.ok() ? std::move(*body) : engine::Json::object();
    predictions_.push_back(std::move(p));
  }
}

void AuditJudge::AddWrites(std::vector<AuditedWrite> writes) {
  for (auto& w : writes) writes_.push_back(std::move(w));
  // In log order: a file read in pieces can hand over a write stamped
  // before the last one of the previous piece.
  std::stable_sort(writes_.begin(), writes_.end(),
                   [](const AuditedWrite& a, const AuditedWrite& b) { return a.time_ns < b.time_ns; });
}

std::vector<Finding> AuditJudge::Judge() const {
  return CompareAudit(predictions_, writes_, event_times_, options_, audit_);
}

}  // namespace recon::shadow
