// The soak's workload: a simulated cluster (sim::Scenario) with the
// DisconnectedFriendlyApp operator and its instances, optionally the samples
// Config, and a seeded stream of user edits that keep every domain busy —
// operator rollouts that move every operand's image, operand deletes and
// drift, instance scaling, instances deleted and recreated; the samples
// Config's management state flipped, its skip lists and registry override
// edited; with an OLM catalog, Subscriptions created in several namespaces,
// switched to another channel, deleted and created again (olm.h). The
// same options give the same scenario, so the fault-free run and the faulty
// run see the same edits at the same cluster times.
#ifndef RECON_SOAK_WORKLOAD_H_
#define RECON_SOAK_WORKLOAD_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "adapters/sim/scenario.h"
#include "records/record.h"

namespace recon::soak {

// A package of the soak's OLM catalog the workload subscribes to
// (LoadSoakOlm fills these from a real catalog).
struct SoakOlmPackage {
  std::string name;
  std::string channel;        // the default channel
  std::string start;          // its oldest entry: the startingCSV
  std::string other_channel;  // a channel holding every entry of `channel` ("" if none)
};

struct WorkloadOptions {
  uint64_t seed = 1;
  int instances = 200;                 // DisconnectedFriendlyApps
  int namespaces = 8;                  // they are spread over
  int edits = 1000;                    // user edits
  int64_t spacing_ns = 6'000'000'000;  // cluster time between edits
  std::string samples_inventory;       // empty: no samples Config
  // Every N edits: a management-state flip at N/2 and a samples spec edit
  // (a skip list or the registry override) at N/4 and 3N/4.
  int samples_every = 100;
  // The inventory's imagestream and template names (LoadSoakSamplesNames):
  // what the skip-list edits pick from. Empty: only registry edits.
  std::vector<std::string> samples_imagestreams, samples_templates;
  // OLM: empty packages, no OLM objects. Every N edits one Subscription
  // edit; subscriptions go to olm_namespaces namespaces (the last one's
  // Manual: nothing there installs without approval, and its plans would
  // hold up every other subscription of a namespace they shared).
  std::vector<SoakOlmPackage> olm_packages;
  int olm_every = 4;
  int olm_namespaces = 3;
  // aro (aro.h): the ARO cluster's objects, and one edit of its Azure
  // network or MachineSet every N edits.
  bool aro = false;
  int aro_every = 10;
  // The agent reads the Azure objects through ARM (recon soak --aro-arm):
  // a short ARM poll interval, and the service principal's secret rotated
  // at aro_rotate_at of the edits.
  bool aro_arm = false;
  double aro_rotate_at = 0.5;
};

// The soak's OLM objects: where the catalog is served from.
inline constexpr char kSoakCatalogNamespace[] = "openshift-marketplace";
inline constexpr char kSoakCatalogName[] = "community";

// The registry overrides the workload switches between (and back to "").
inline constexpr const char* kSoakSamplesRegistries[] = {"mirror.example.com:5000",
                                                         "registry.internal:8443/samples"};

// The operator Deployment the disconnected domain reads its images from.
inline constexpr char kSoakOperatorNamespace[] = "openshift-operators";
inline constexpr char kSoakOperatorName[] = "simple-disconnected-operator-controller-manager";

// A pure function of the options: no file is read here.
sim::Scenario BuildSoakScenario(const WorkloadOptions& options);

// Reads every file under a directory (cli::LoadDirectory): soak/ does not
// include cli/, the binary hands it in.
using LoadDirectoryFn = std::function<absl::StatusOr<records::ContentFiles>(const std::string& dir)>;

// Fills samples_imagestreams and samples_templates from the inventory
// directory samples_inventory (sorted names); nothing when it is empty.
absl::Status LoadSoakSamplesNames(WorkloadOptions* options, const LoadDirectoryFn& load_directory);

// Events the agent logs per edit, on average, for sizing a run from an
// event target (measured on runs of this workload; see README "Soak").
double EstimatedEventsPerEdit(const WorkloadOptions& options);

}  // namespace recon::soak

#endif  // RECON_SOAK_WORKLOAD_H_
