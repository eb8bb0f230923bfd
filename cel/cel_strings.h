// The cel-go strings extension functions (ext.Strings) that Kubernetes
// enables for x-kubernetes-validations rules: split, join, lowerAscii,
// upperAscii, trim, replace and indexOf, with Go's strings semantics.
#ifndef RECON_CEL_CEL_STRINGS_H_
#define RECON_CEL_CEL_STRINGS_H_

#include "cel/cel_env.h"

namespace recon::cel {

void AddStringsExtension(CelEnv& env);

}  // namespace recon::cel

#endif  // RECON_CEL_CEL_STRINGS_H_
