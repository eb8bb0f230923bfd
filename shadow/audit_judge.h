// The audit-log judgement as it accumulates: predictions recorded as the
// domains make them (what each would have sent), the operator's audited
// writes added as they are read, and the findings computed over all of it
// on demand (CompareAudit). Used by `recon shadow report --audit` over a
// whole log and by `recon agent --shadow --audit-log FILE` on a growing one.
// Pure; no I/O.
#ifndef RECON_SHADOW_AUDIT_JUDGE_H_
#define RECON_SHADOW_AUDIT_JUDGE_H_

#include <span>
#include <vector>

#include "engine/event.h"
#include "records/record.h"
#include "shadow/audit_compare.h"

namespace recon::shadow {

class AuditJudge {
 public:
  AuditJudge(Options options, AuditOptions audit) : options_(std::move(options)), audit_(std::move(audit)) {}

  // One reduced event and the actions it caused.
  void Observe(const engine::Event& event, std::span<const records::ActionRecord> actions);
  void AddWrites(std::vector<AuditedWrite> writes);

  // Every prediction so far judged on every write so far.
  std::vector<Finding> Judge() const;
  size_t writes() const { return writes_.size(); }
  size_t predictions() const { return predictions_.size(); }

 private:
  Options options_;
  AuditOptions audit_;
  std::vector<PredictionRecord> predictions_;
  std::vector<AuditedWrite> writes_;
  std::vector<int64_t> event_times_;
};

}  // namespace recon::shadow

#endif  // RECON_SHADOW_AUDIT_JUDGE_H_
