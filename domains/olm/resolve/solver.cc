#include "domains/olm/resolve/solver.h"

#include <algorithm>
#include <set>

#include "base/strings.h"

namespace recon::olm {
namespace {

class Search {
 public:
  Search(const SolverProblem& p, uint64_t budget) : p_(p), budget_(budget) {
    on_.assign(p.vars.size(), false);
    count_.assign(p.at_most.size(), 0);
    in_at_most_.resize(p.vars.size());
    for (size_t i = 0; i < p.at_most.size(); ++i)
      for (int v : p.at_most[i].vars) in_at_most_[v].push_back(static_cast<int>(i));
    conflicted_by_.resize(p.vars.size());
    for (size_t v = 0; v < p.vars.size(); ++v)
      for (int c : p.vars[v].conflicts) conflicted_by_[c].push_back(static_cast<int>(v));
  }

  absl::StatusOr<std::vector<bool>> Run() {
    // Anchors first, in input order; their dependencies seed the choices.
    for (size_t v = 0; v < p_.vars.size(); ++v) {
      if (!p_.vars[v].mandatory) continue;
      if (!Assume(static_cast<int>(v))) {
        Record(p_.vars[v].mandatory_message);
        return Unsat();
      }
      PushChoices(static_cast<int>(v));
    }
    if (!Step(0)) {
      if (exhausted_) {
        return absl::ResourceExhaustedError(StrCat("resolution gave up after ", budget_, " search steps"));
      }
      return Unsat();
    }
    return on_;
  }

 private:
  struct Choice {
    int var, dep;
  };

  void PushChoices(int v) {
    for (size_t d = 0; d < p_.vars[v].dependencies.size(); ++d) queue_.push_back({v, static_cast<int>(d)});
  }

  void Record(const std::string& msg) {
    if (!msg.empty() && seen_.insert(msg).second) core_.push_back(msg);
  }

  absl::Status Unsat() {
    std::string out = "constraints not satisfiable: ";
    for (size_t i = core_.size(); i-- > 0;) StrAppend(&out, i + 1 == core_.size() ? "" : ", ", core_[i]);
    return absl::FailedPreconditionError(out);
  }

  bool Assume(int v) {
    const SolverVar& x = p_.vars[v];
    if (x.prohibited) {
      Record(x.prohibited_message);
      return false;
    }
    for (int c : x.conflicts) {
      if (on_[c]) {
        Record(x.conflict_message);
        return false;
      }
    }
    for (int o : conflicted_by_[v]) {
      if (on_[o]) {
        Record(p_.vars[o].conflict_message);
        return false;
      }
    }
    for (int a : in_at_most_[v]) {
      if (count_[a] + 1 > p_.at_most[a].n) {
        Record(p_.at_most[a].message);
        Record(p_.at_most[a].mandatory_message);
        return false;
      }
    }
    on_[v] = true;
    for (int a : in_at_most_[v]) ++count_[a];
    return true;
  }

  void Retract(int v) {
    on_[v] = false;
    for (int a : in_at_most_[v]) --count_[a];
  }

  bool Step(size_t pos) {
    if (++steps_ > budget_) {
      exhausted_ = true;
      return false;
    }
    if (pos == queue_.size()) return true;
    Choice ch = queue_[pos];
    const SolverDependency& d = p_.vars[ch.var].dependencies[ch.dep];
    for (int c : d.candidates)
      if (on_[c]) return Step(pos + 1);
    for (int c : d.candidates) {
      if (!Assume(c)) continue;
      size_t mark = queue_.size();
      PushChoices(c);
      if (Step(pos + 1)) return true;
      queue_.resize(mark);
      Retract(c);
      if (exhausted_) return false;
    }
    Record(d.message);
    if (p_.vars[ch.var].mandatory) Record(p_.vars[ch.var].mandatory_message);
    return false;
  }

  const SolverProblem& p_;
  uint64_t budget_, steps_ = 0;
  bool exhausted_ = false;
  std::vector<bool> on_;
  std::vector<int> count_;
  std::vector<std::vector<int>> in_at_most_, conflicted_by_;
  std::vector<Choice> queue_;
  std::vector<std::string> core_;
  std::set<std::string> seen_;
};

}  // namespace

absl::StatusOr<std::vector<bool>> Solve(const SolverProblem& problem, uint64_t budget) {
  return Search(problem, budget).Run();
}

}  // namespace recon::olm
