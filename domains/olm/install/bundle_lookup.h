// Bundle lookups (docs/notes/olm-bundle-unpack-v0.24.0.md): a resolved
// bundle that has an image is unpacked by a Job in its catalog's
// namespace, which writes the bundle's manifests into a ConfigMap; the
// InstallPlan's lookup then turns into steps. Everything here is a pure
// function of the objects involved.
#ifndef RECON_DOMAINS_OLM_INSTALL_BUNDLE_LOOKUP_H_
#define RECON_DOMAINS_OLM_INSTALL_BUNDLE_LOOKUP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "domains/olm/install/bundle_steps.h"
#include "engine/json.h"

namespace recon::olm {

// A status.bundleLookups entry as a plan is created with it: the bundle's
// image, its CSV, the resolved replaces, its catalog, its properties
// ({"properties":[...]}, or {} with none), NotPersisted and Pending.
engine::Json NewBundleLookup(std::string_view path, std::string_view identifier, std::string_view replaces,
                             std::string_view catalog, std::string_view catalog_ns,
                             const engine::Json& properties);

// The name of the ConfigMap, Job, Role and RoleBinding that unpack an
// image: the hex SHA-256 of the path, cut to 63 characters.
std::string UnpackName(std::string_view path);

struct UnpackOptions {
  std::string util_image = "quay.io/operator-framework/olm:latest";                    // --util-image
  std::string opm_image = "quay.io/operator-framework/upstream-opm-builder:latest";   // --opmImage
  int64_t timeout_ns = 600'000'000'000;  // --bundle-unpack-timeout (10m); 0: no deadline
};

// The unpack timeout for a plan: its operatorframework.io/bundle-unpack-timeout
// annotation when that is a Go duration >= 0, else the default.
int64_t UnpackTimeout(const engine::Json& ip, int64_t default_ns);

// The objects that unpack `path` for the CatalogSource `catalog`, as OLM
// creates them (the ConfigMap owned by the catalog; the others by the
// ConfigMap, whose uid they need).
engine::Json UnpackConfigMap(std::string_view path, const engine::Json& catalog);
engine::Json UnpackRole(std::string_view path, std::string_view ns, std::string_view cm_uid);
engine::Json UnpackRoleBinding(std::string_view path, std::string_view ns, std::string_view cm_uid);
engine::Json UnpackJob(std::string_view path, const engine::Json& catalog, std::string_view cm_uid,
                       const UnpackOptions& options, int64_t timeout_ns);

// The manifests the Job wrote into the ConfigMap, decoded (binaryData
// gunzipped when olm.contentEncoding is gzip+base64, else data), in key
// order (upstream: Go map order). An entry without a kind is skipped.
absl::StatusOr<std::vector<engine::Json>> LoadBundleConfigMap(const engine::Json& cm);

// The bundle content of an unpacked lookup: its CSV and objects from the
// ConfigMap, the lookup's properties, replaces and catalog.
absl::StatusOr<BundleContent> LookupContent(const engine::Json& lookup, const std::vector<engine::Json>& objects);

// What one sync sees of a lookup's unpacking.
struct UnpackView {
  const engine::Json* catalog = nullptr;    // the CatalogSource, null if gone
  const engine::Json* job = nullptr;        // the Job, null if not there
  const engine::Json* configmap = nullptr;  // the ConfigMap, null if not there
  std::vector<const engine::Json*> pods;    // the Job's pods (label job-name)
};

// One lookup advanced by a sync (§4): its new value, and whether it is
// unpacked now (the caller builds its steps), failed, or still pending.
struct LookupAdvance {
  engine::Json lookup;
  std::optional<std::vector<engine::Json>> objects;  // unpacked: the ConfigMap's manifests
  bool failed = false;
  absl::Status error;  // returned by the sync (rate-limited requeue)
};
LookupAdvance AdvanceLookup(const engine::Json& lookup, const UnpackView& view, int64_t now_ns);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_INSTALL_BUNDLE_LOOKUP_H_
