// The operator's Prometheus series (reference §16), derived from reducer
// state and the world each time the agent asks (upstream: partly set on
// condition/CO updates, partly collected on scrape).
#include "absl/strings/escaping.h"
#include "domains/samples/names.h"
#include "domains/samples/reducer.h"

namespace recon::samples {
namespace {

constexpr char kFailedImport[] = "openshift_samples_failed_imagestream_import_info";
constexpr char kInvalidSecret[] = "openshift_samples_invalidsecret_info";
constexpr char kInvalidConfig[] = "openshift_samples_invalidconfig_info";
constexpr char kDegraded[] = "openshift_samples_degraded_info";
constexpr char kTbrInaccessible[] = "openshift_samples_tbr_inaccessible_info";
constexpr char kRetryTotal[] = "openshift_samples_retry_imagestream_import_total";

// 1 unless openshift-config/pull-secret has a registry.redhat.io credential.
double MissingTbrCredential(const World& world) {
  const engine::Object* secret = world.Get("", "Secret", "openshift-config", "pull-secret");
  if (secret == nullptr) return 1;
  std::string encoded = engine::GetString(secret->json(), {"data", ".dockerconfigjson"});
  std::string decoded;
  if (encoded.empty() || !absl::Base64Unescape(encoded, &decoded)) return 1;
  auto parsed = engine::ParseJson(decoded);
  if (!parsed.ok()) return 1;
  const Json& auths = engine::Path(*parsed, {"auths"});
  return auths.is_object() && auths.contains("registry.redhat.io") ? 0 : 1;
}

bool ConditionIsTrue(const Json& status, std::string_view type) {
  const Json& conds = engine::Path(status, {"conditions"});
  if (!conds.is_array()) return false;
  for (const Json& c : conds)
    if (engine::GetString(c, {"type"}) == type) return engine::GetString(c, {"status"}) == "True";
  return false;
}

}  // namespace

void SamplesReducer::ExportMetrics(const World& world, engine::MetricSink& m) const {
  m.Declare(kFailedImport, "gauge",
            "Indicates by name whether a samples imagestream import has failed or not (1 == failure, 0 == "
            "success).");
  m.Declare(
      kInvalidSecret, "gauge",
      "Indicates if the pull secret is functional in the openshift namespace (1 == not functional, 0 == "
      "functional). A reason label is supplied with a value of either missing_secret or "
      "missing_tbr_credential.");
  m.Declare(kInvalidConfig, "gauge",
            "Indicates if the samples operator configuration is valid (1 == invalid, 0 == valid).");
  m.Declare(kDegraded, "gauge",
            "Indicates if the samples operator is degraded (1 == degraded, 0 == not degraded).");
  m.Declare(
      kTbrInaccessible, "gauge",
      "Indicates that the samples operator could not access registry.redhat.io at its initial installation "
      "and bootstrapped as removed (1 == inaccessible).");
  m.Declare(kRetryTotal, "counter",
            "Indicates the number of imagestream imports the samples operator has retried.");

  m.Set(kDegraded, {}, st_.degraded_metric);
  m.Set(kTbrInaccessible, {}, st_.tbr_unreachable ? 1 : 0);
  for (const auto& [name, n] : st_.retry_total) m.Set(kRetryTotal, {{"imagestreamname", name}}, double(n));

  // The scrape-time series exist only while the samples are managed.
  m.ClearFamily(kFailedImport);
  m.ClearFamily(kInvalidSecret);
  auto cfg = ReadConfig(world);
  const bool managed = cfg && cfg->mgmt != kRemoved && cfg->mgmt != kUnmanaged;
  if (!managed) {
    m.Set(kInvalidConfig, {}, st_.invalidconfig_metric);  // keeps its last value
    return;
  }
  m.Set(kInvalidConfig, {}, ConditionIsTrue(cfg->status, kConfigurationValid) ? 0 : 1);
  m.Set(kInvalidSecret, {{"reason", "missing_secret"}},
        ConditionIsTrue(cfg->status, kImportCredentialsExist) ? 0 : 1);
  m.Set(kInvalidSecret, {{"reason", "missing_tbr_credential"}},
        engine::GetString(cfg->spec, {"samplesRegistry"}).empty() ? MissingTbrCredential(world) : 0);

  // Every inventory imagestream: 1 when its tracking ConfigMap says failed.
  // The parsed inventory is reused when Reduce already loaded this content.
  const records::ContentFiles* files = world.Content(kInventoryContent);
  if (files == nullptr) return;
  std::shared_ptr<absl::StatusOr<Inventory>> inv = inventory_;
  if (!inv || inventory_digest_ != world.ContentDigest(kInventoryContent))
    inv = std::make_shared<absl::StatusOr<Inventory>>(LoadInventory(*files));
  if (!inv->ok()) return;
  for (const auto& [name, file] : (*inv)->streams) {
    double failed = 0;
    if (!cfg->skipped_streams.contains(name)) {
      const engine::Object* cm = world.Get("", "ConfigMap", kOperatorNs, name);
      failed = cm != nullptr && cm->Label(kImportErrorLabel) == "true" ? 1 : 0;
    }
    m.Set(kFailedImport, {{"name", name}}, failed);
  }
}

}  // namespace recon::samples
