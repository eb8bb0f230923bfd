// What a CEL rule may refer to besides the standard operators, macros and
// functions: the declared variables (name → type, `dyn` allowed) and the
// extension functions the embedder registers (olm's `semver_compare`, the
// cel-go strings extension for Kubernetes rules). The checker resolves names
// against it; the evaluator calls the registered implementations.
#ifndef RECON_CEL_CEL_ENV_H_
#define RECON_CEL_CEL_ENV_H_

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "cel/cel_check.h"
#include "cel/cel_value.h"

namespace recon::cel {

// One overload of an extension function. With `receiver` the call is
// written `args[0].name(args[1..])` and params[0] is the receiver's type.
struct CelFunction {
  std::string name;
  bool receiver = false;
  std::vector<CelType> params;
  CelType result;
  // Called with arguments already evaluated (strictly: an argument error
  // never reaches it); an error is an evaluation error.
  std::function<absl::StatusOr<CelValue>(const std::vector<CelValue>&)> impl;
};

class CelEnv {
 public:
  CelEnv& Declare(std::string name, CelType type);
  CelEnv& AddFunction(CelFunction f);

  const CelType* FindVariable(std::string_view name) const;
  // Every overload named `name` called in the given form, in registration order.
  std::vector<const CelFunction*> FindFunctions(std::string_view name, bool receiver) const;

 private:
  std::vector<std::pair<std::string, CelType>> variables_;
  std::vector<CelFunction> functions_;
};

// The values bound to the declared variables for one evaluation (a declared
// variable left unbound is an evaluation error when it is read).
using CelActivation = std::vector<std::pair<std::string_view, const CelValue*>>;

}  // namespace recon::cel

#endif  // RECON_CEL_CEL_ENV_H_
