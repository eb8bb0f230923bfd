// The warnings a Kubernetes API server attaches to an answer: `Warning`
// headers (RFC 7234 §5.5, as k8s.io/apimachinery's warning handler
// reads them), each `<code> <agent> "<text>" ["<date>"]`, several per
// header separated by commas. The server uses code 299 only (an unknown
// field it dropped, a deprecated API); other codes are not its own and are
// skipped, as client-go skips them.
#ifndef RECON_ADAPTERS_K8S_WARNINGS_H_
#define RECON_ADAPTERS_K8S_WARNINGS_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace recon::k8s {

// The texts of the 299 warnings in the answer's headers (names lower-cased,
// as HttpResponse keeps them), in order; a malformed header's rest skipped.
std::vector<std::string> ServerWarnings(const std::vector<std::pair<std::string, std::string>>& headers);

// As the ActionResult's `warnings` field: a JSON array of the texts, ""
// when there are none.
std::string WarningsJson(const std::vector<std::string>& warnings);

}  // namespace recon::k8s

#endif  // RECON_ADAPTERS_K8S_WARNINGS_H_
