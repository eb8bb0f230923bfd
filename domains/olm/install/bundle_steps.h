// The InstallPlan steps of one bundle (reference olm-operator.md §A.3,
// §A.4): the CSV, every other manifest of the bundle, and the RBAC the
// CSV's install strategy asks for, in OLM v0.24.0's order. A step is the
// JSON of a status.plan entry: {resolving, resource{sourceName,
// sourceNamespace, group, version, kind, name, manifest}, status}.
//
// Deterministic where upstream is not: upstream groups the RBAC by service
// account in Go map order; here the service accounts come in name order.
// Upstream's RBAC name suffix hashes a Go-specific dump of Go structs; here
// it is fnv32a over the inputs' compact JSON, in the same alphabet and
// shape (RbacHash), so names are stable and change when the inputs do.
#ifndef RECON_DOMAINS_OLM_INSTALL_BUNDLE_STEPS_H_
#define RECON_DOMAINS_OLM_INSTALL_BUNDLE_STEPS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/json.h"

namespace recon::olm {

inline constexpr std::string_view kCsvApiVersion = "operators.coreos.com/v1alpha1";

// One bundle's content as the catalog operator has it after unpacking (or
// from inline catalog content): the CSV, every manifest of the bundle (a
// ClusterServiceVersion among them is skipped), the bundle's properties.
struct BundleContent {
  engine::Json csv;                            // the bundle's CSV
  std::vector<engine::Json> objects;           // the bundle's manifests, in bundle order
  engine::Json properties = engine::Json::array();  // [{type, value}]
  std::string replaces;                        // as resolution decided (§9.7)
  std::string catalog, catalog_ns;             // the step's source
};

// The steps of the bundle for install namespace `ns`, unordered (§A.3).
// The only error is upstream's fatal one: "bundle CSV %s missing APIVersion"
// or "... missing Kind".
absl::StatusOr<std::vector<engine::Json>> BundleSteps(const BundleContent& bundle, std::string_view ns);

// OLM's OrderSteps (§A.4): every CSV step, then every CRD step, then the
// rest, each group in its original order.
std::vector<engine::Json> OrderSteps(std::vector<engine::Json> steps);

// The name suffix of generated RBAC: fnv32a of the inputs' JSON, its
// decimal digits mapped to "bcdfghjklmnpqrstvwxz2456789" (the shape of
// upstream's rand.SafeEncodeString(fmt.Sprint(hash))).
std::string RbacHash(const engine::Json& inputs);
// upstream's generateName: base + "-" + hash, the base cut so that the
// whole is 63 characters when base and hash together exceed 63.
std::string RbacName(std::string_view base, std::string_view hash);

// A non-blocking owner reference to the CSV (uid filled at execution).
engine::Json CsvOwnerRef(std::string_view csv, std::string_view uid = "");

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_INSTALL_BUNDLE_STEPS_H_
