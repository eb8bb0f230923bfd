// Fixed names and strings of the cluster-samples-operator. Clients and
// alerts match on these, so they are exactly upstream's.
#ifndef RECON_DOMAINS_SAMPLES_NAMES_H_
#define RECON_DOMAINS_SAMPLES_NAMES_H_

#include <cstdint>
#include <string_view>

namespace recon::samples {

inline constexpr std::string_view kDomain = "samples";

inline constexpr std::string_view kSamplesGroup = "samples.operator.openshift.io";
inline constexpr std::string_view kSamplesApiVersion = "samples.operator.openshift.io/v1";
inline constexpr std::string_view kImageGroup = "image.openshift.io";
inline constexpr std::string_view kImageApiVersion = "image.openshift.io/v1";
inline constexpr std::string_view kTemplateGroup = "template.openshift.io";
inline constexpr std::string_view kTemplateApiVersion = "template.openshift.io/v1";
inline constexpr std::string_view kConfigGroup = "config.openshift.io";
inline constexpr std::string_view kConfigApiVersion = "config.openshift.io/v1";

inline constexpr std::string_view kConfigName = "cluster";
inline constexpr std::string_view kSamplesNs = "openshift";
inline constexpr std::string_view kOperatorNs = "openshift-cluster-samples-operator";
inline constexpr std::string_view kClusterOperatorName = "openshift-samples";
inline constexpr std::string_view kIstToImageCm = "imagestreamtag-to-image";

inline constexpr std::string_view kFinalizer = "samples.operator.openshift.io/finalizer";
inline constexpr std::string_view kManagedLabel = "samples.operator.openshift.io/managed";
inline constexpr std::string_view kVersionAnnotation = "samples.operator.openshift.io/version";
// Note the group: no ".operator" (as upstream).
inline constexpr std::string_view kImportErrorLabel = "samples.openshift.io/imagestream-error";

// Config condition types, in upstream's canonical order.
inline constexpr std::string_view kSamplesExist = "SamplesExist";
inline constexpr std::string_view kImportCredentialsExist = "ImportCredentialsExist";
inline constexpr std::string_view kConfigurationValid = "ConfigurationValid";
inline constexpr std::string_view kImageChangesInProgress = "ImageChangesInProgress";
inline constexpr std::string_view kRemovePending = "RemovePending";
inline constexpr std::string_view kMigrationInProgress = "MigrationInProgress";
inline constexpr std::string_view kImportImageErrorsExist = "ImportImageErrorsExist";
inline constexpr int kConditionTypeCount = 7;

inline constexpr std::string_view kManaged = "Managed";
inline constexpr std::string_view kUnmanaged = "Unmanaged";
inline constexpr std::string_view kRemoved = "Removed";
inline constexpr std::string_view kForce = "Force";

// Timers.
inline constexpr std::string_view kReimportTimer = "samples/reimport";
inline constexpr std::string_view kRemovalWaitTimer = "samples/removalWait";
// The terms-based-registry probe asked at bootstrap when no fact says.
inline constexpr std::string_view kRegistryProbe = "samples/registry";
inline constexpr std::string_view kRegistryProbeTarget = "registry.redhat.io:443";
// Upstream polls the probe every 20 s for up to 5 minutes before it takes
// the registry for unreachable (reference §5 step 2.4).
inline constexpr std::string_view kRegistryProbeTimer = "samples/registryProbe";
inline constexpr int64_t kRegistryProbeEveryNs = 20'000'000'000;
inline constexpr int64_t kRegistryProbeForNs = 300'000'000'000;
// What the domain's explain notes are about.
inline constexpr std::string_view kExplainSubject = "Config cluster";

inline constexpr std::string_view kInventoryContent = "samples/inventory";

inline constexpr std::string_view kImportErrorsMessage =
    "ImageStream import errors have been detected.  Scan the openshift-cluster-samples-operator namespace "
    "for "
    "config maps.  Each failing imagestream will have a config map.  And the 'data' map will have entries "
    "per "
    "image stream tag with details on the errors.";

inline constexpr int64_t kNsPerSecond = 1000000000LL;
inline constexpr int64_t kNsPerMinute = 60 * kNsPerSecond;

}  // namespace recon::samples

#endif  // RECON_DOMAINS_SAMPLES_NAMES_H_
