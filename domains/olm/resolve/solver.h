// A small deterministic solver for OLM's constraint model (reference §9.2,
// §9.5). Variables are installables; constraints: Mandatory, Prohibited,
// Dependency (ordered preference), Conflict, AtMost. The search follows
// upstream's preference order (a FIFO of choices seeded by the anchors,
// each choice trying its candidates in order) but backtracks exhaustively
// and never randomises, so the same input always gives the same answer.
#ifndef RECON_DOMAINS_OLM_RESOLVE_SOLVER_H_
#define RECON_DOMAINS_OLM_RESOLVE_SOLVER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace recon::olm {

struct SolverDependency {
  std::vector<int> candidates;  // preference order
  std::string message;
};

struct SolverVar {
  std::string id;
  bool mandatory = false;
  std::string mandatory_message;
  bool prohibited = false;
  std::string prohibited_message;
  std::vector<SolverDependency> dependencies;
  std::vector<int> conflicts;
  std::string conflict_message;
};

struct SolverAtMost {
  int n = 1;
  std::vector<int> vars;
  std::string mandatory_message, message;
};

struct SolverProblem {
  std::vector<SolverVar> vars;
  std::vector<SolverAtMost> at_most;
};

// The installed set (true per variable), or FailedPrecondition with
// "constraints not satisfiable: ..." naming the constraints that failed,
// or ResourceExhausted when the search budget runs out.
absl::StatusOr<std::vector<bool>> Solve(const SolverProblem& problem, uint64_t budget = 200000);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_RESOLVE_SOLVER_H_
