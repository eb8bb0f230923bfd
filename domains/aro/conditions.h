// Cluster status conditions and the two upstream ways of merging them:
// (A) the checkers' setter (LTT kept while the status is unchanged, unknown
// types pruned) and (B) the controller-status setter (library-go merge).
#ifndef RECON_DOMAINS_ARO_CONDITIONS_H_
#define RECON_DOMAINS_ARO_CONDITIONS_H_

#include <string>
#include <string_view>
#include <vector>

#include "engine/json.h"

namespace recon::aro {

inline constexpr std::string_view kTrue = "True";
inline constexpr std::string_view kFalse = "False";
inline constexpr std::string_view kUnknown = "Unknown";

struct Condition {
  std::string type, status, last_transition_time, reason, message;

  // OperatorCondition JSON: reason/message omitted when empty.
  engine::Json ToJson() const;
  static Condition FromJson(const engine::Json& j);
  bool operator==(const Condition&) const = default;
};

// AllConditionTypes() or a *ControllerAvailable/Progressing/Degraded type.
bool IsKnownConditionType(std::string_view type);

// Setter (A) merge of `c` into `conds` at time `now` (RFC 3339). Returns
// whether anything changed (status, reason or message, or a new type).
bool MergeChecker(std::vector<Condition>& conds, const Condition& c, const std::string& now);
// Setter (A) pruning of unknown types; returns whether any was removed.
bool PruneUnknown(std::vector<Condition>& conds, std::vector<std::string>* removed);
// Setter (B) merge: LTT changes with the status, reason/message always copied.
void MergeController(std::vector<Condition>& conds, const Condition& c, const std::string& now);

const Condition* FindCondition(const std::vector<Condition>& conds, std::string_view type);

}  // namespace recon::aro

#endif  // RECON_DOMAINS_ARO_CONDITIONS_H_
