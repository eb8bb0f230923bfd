// One execution pass over an Installing InstallPlan's steps (reference
// olm-operator.md §A.5, §A.6) and the phase it leads to (§A.9), as a pure
// function of the plan and what the cluster shows.
//
// Upstream executes with a live client: a create returns at once with the
// new object's uid, and the next step can own objects by it. A reducer's
// writes land later. So a step whose object the pass creates stays as it
// was until the create is answered (`in_flight`), and a step that needs
// the uid of a CSV not observed yet waits for it; once every create of
// the plan is answered, the pass assigns the statuses upstream's single
// pass would have (Created, WaitingForApi for a CRD) and the plan status
// is written. The writes and the status writes are upstream's; only the
// number of passes differs.
#ifndef RECON_DOMAINS_OLM_INSTALL_PLAN_PASS_H_
#define RECON_DOMAINS_OLM_INSTALL_PLAN_PASS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "engine/json.h"

namespace recon::olm {

// Where the plan's own create of an object stands.
struct OwnCreate {
  enum State { kNone, kInFlight, kLanded, kFailed };
  State state = kNone;
  std::string error;  // kFailed: the server's message
};

// What a pass reads of the cluster.
class ClusterView {
 public:
  virtual ~ClusterView() = default;
  // The object as observed, else null (cluster-scoped: ns empty).
  virtual const engine::Json* Get(std::string_view group, std::string_view kind, std::string_view ns,
                                  std::string_view name) const = 0;
  // The objects of a kind in a namespace, in name order.
  virtual std::vector<const engine::Json*> List(std::string_view group, std::string_view kind,
                                                std::string_view ns) const = 0;
  // This plan's own create of the object.
  virtual OwnCreate CreateOf(std::string_view group, std::string_view kind, std::string_view ns,
                             std::string_view name) const = 0;
  // Discovery: whether the kind is namespaced; nullopt if not served.
  virtual std::optional<bool> Namespaced(std::string_view group, std::string_view version,
                                         std::string_view kind) const = 0;
};

// A write of the pass, in step order.
struct PlanWrite {
  std::string verb;  // "create" or "update"
  engine::Json object;
  size_t step = 0;  // index in status.plan
};

struct PassResult {
  engine::Json plan = engine::Json::array();  // status.plan with this pass's step statuses
  std::vector<PlanWrite> writes;
  absl::Status error;             // the error that ended the pass (§A.5: the first one)
  bool in_flight = false;         // a create of the plan is not answered, or a CSV it made not seen
  bool waiting_for_api = false;   // a CRD step is WaitingForApi
  std::string waiting_for;        // the first object waited for, for explain
};

// One unpacked bundle ConfigMap "<ns>/<name>" (bundle lookups) and the
// steps BundleSteps makes of its content: a step whose manifest refers to
// the ConfigMap takes the manifest of the step of the same name, kind,
// version and group (upstream recomputes them the same way).
struct UnpackedManifests {
  std::string configmap;
  std::shared_ptr<const std::vector<engine::Json>> steps;  // shared: kept between passes (never null)
  // The steps' manifests parsed once (ParsedManifests), in step order; null:
  // parsed at every pass.
  std::shared_ptr<const std::vector<engine::Json>> manifests;
};

// Each step's `resource.manifest` parsed (a null Json where it does not
// parse: the pass parses that one again, for its error).
std::shared_ptr<const std::vector<engine::Json>> ParsedManifests(const std::vector<engine::Json>& steps);

// A plan's step manifests as parsed by its earlier passes, by their text
// (a null Json: it did not parse to an object). Its status is rewritten
// between passes; its manifests are not.
using ManifestCache = std::map<std::string, engine::Json, std::less<>>;

struct PassOptions {
  // The catalog operator's namespace: a pull-secret step copies the Secret
  // of its name from there.
  std::string operator_ns = "openshift-operator-lifecycle-manager";
  // Kept by the caller between this plan's passes; null: parsed each pass.
  ManifestCache* manifests = nullptr;
};

// One pass over the InstallPlan `ip` (its status.plan).
PassResult ExecutePass(const engine::Json& ip, const ClusterView& view,
                       const std::vector<UnpackedManifests>& unpacked = {}, const PassOptions& options = {});

// The InstallPlan status after a pass (§A.9): startTime set if unset;
// Complete with Installed=True when nothing failed and no CRD waits;
// Installing with "retrying execution due to error: <err>" while the error
// is younger than `timeout_ns` (upstream's --install-plan-retry-timeout),
// then Failed with InstallComponentFailed.
engine::Json InstallingOutcome(const engine::Json& status, const PassResult& pass, int64_t now_ns,
                               int64_t timeout_ns);
inline constexpr int64_t kInstallPlanRetryTimeoutNs = 60'000'000'000;
// An Installing plan is synced again after 5 s (§A.1).
inline constexpr int64_t kInstallPlanRequeueNs = 5'000'000'000;

// InstallPlan conditions (api/v1alpha1 SetCondition): merged by type,
// lastUpdateTime now, lastTransitionTime now unless the status is unchanged.
void SetPlanCondition(engine::Json& status, std::string_view type, std::string_view cstatus,
                      std::string_view reason, std::string_view message, int64_t now_ns);

// crd_step.cc: the installed-alongside annotation key of "<ns>/<name>" (§A.6).
std::string AlongsideKey(std::string_view ns_name);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_INSTALL_PLAN_PASS_H_
