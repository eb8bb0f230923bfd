// Computes the views domains declare on a Secret (engine/secret_view.h)
// from its values, before the redactor replaces them. Pure; no I/O.
#ifndef RECON_RUNTIME_SECRET_VIEWS_H_
#define RECON_RUNTIME_SECRET_VIEWS_H_

#include <functional>
#include <string_view>
#include <vector>

#include "engine/json.h"
#include "engine/secret_view.h"

namespace recon::runtime {

// Replaces a scalar of a view by its marker, recording what it stands for
// (the redactor's own leaf rule).
using HideLeaf = std::function<void(engine::Json& leaf)>;

// Sets body["reconViews"][view] for each view of the Secret ns/name whose
// values `body` still holds. A view over a value already redacted (the
// body was redacted before) or not valid base64 is left as the body has it,
// so redacting twice changes nothing. `hide` redacts the scalars of a
// kYamlTree view that are not in clear.
void ComputeSecretViews(const std::vector<engine::SecretView>& views, std::string_view ns,
                        std::string_view name, engine::Json& body, const HideLeaf& hide);

}  // namespace recon::runtime

#endif  // RECON_RUNTIME_SECRET_VIEWS_H_
