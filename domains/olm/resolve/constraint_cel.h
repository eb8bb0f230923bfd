// The CEL environment of olm.constraint rules (reference §9.6): the
// variable `properties: list(map(string, dyn))` (a candidate bundle's
// properties) and `semver_compare(dyn, dyn) -> int`, on top of recon_cel.
#ifndef RECON_DOMAINS_OLM_RESOLVE_CONSTRAINT_CEL_H_
#define RECON_DOMAINS_OLM_RESOLVE_CONSTRAINT_CEL_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "cel/cel.h"

namespace recon::olm {

std::shared_ptr<const cel::CelEnv> ConstraintCelEnv();

// A rule compiled in that environment (its errors are CelProgram::Compile's).
absl::StatusOr<cel::CelProgram> CompileConstraintCel(std::string_view rule);

// The rule's value for a bundle with these properties.
absl::StatusOr<bool> EvaluateConstraintCel(const cel::CelProgram& program, const cel::CelValue& properties);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_RESOLVE_CONSTRAINT_CEL_H_
