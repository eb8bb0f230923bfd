// ServicePrincipalChecker: a token probe for the Graph scope, re-checked
// hourly (timer aro/serviceprincipal), on backoff, and when
// kube-system/azure-credentials changes. As ARO-RP bf96a7527b does it
// (aro.servicePrincipalCheck=defaultCredential, the default): the token comes
// from the operator's DefaultAzureCredential (the adapter: --azure-credentials
// env), any error is ServicePrincipalValid=False/CheckFailed with its text,
// success True/CheckDone. As the older upstream of reference §4
// (clusterSecret): False only for the AADSTS credential failures, Unknown
// otherwise.
#ifndef RECON_DOMAINS_ARO_SP_CHECKER_H_
#define RECON_DOMAINS_ARO_SP_CHECKER_H_

#include <cstdint>
#include <string>

#include "domains/aro/cluster_status.h"
#include "domains/aro/options.h"
#include "domains/aro/requeue.h"
#include "engine/emit.h"
#include "engine/event.h"
#include "engine/world.h"

namespace recon::aro {

inline constexpr std::string_view kSpProbe = "aro/serviceprincipal";
inline constexpr std::string_view kSpTimer = "aro/serviceprincipal";

// The condition for a probe answer: ok + claims, or the AAD error text.
Condition ServicePrincipalCondition(bool ok, std::string_view detail, std::string_view data,
                                    bool default_credential);

class ServicePrincipalChecker {
 public:
  ServicePrincipalChecker() : requeue_(std::string(kSpTimer)) {}

  void Trigger(const engine::Event& event, const engine::World& world, engine::Emit& emit,
               ClusterStatus& status, const Options& options);
  void OnTimer(const engine::Event& event, const engine::World& world, engine::Emit& emit,
               ClusterStatus& status, const Options& options);
  bool OnProbe(const engine::Event& event, const engine::World& world, engine::Emit& emit,
               ClusterStatus& status, const Options& options);

  // Read-only views for explain.
  bool open() const { return open_; }
  bool dirty() const { return dirty_; }
  int64_t start() const { return start_; }
  const std::string& target() const { return target_; }
  // The seq of the event that started the open (or last) round: its notes name it.
  uint64_t round() const { return round_; }
  const Requeue& requeue() const { return requeue_; }
  engine::Json ToJson() const;
  void FromJson(const engine::Json& j);

 private:
  void Start(const engine::Event& event, const engine::World& world, engine::Emit& emit,
             ClusterStatus& status, const Options& options);
  void Finish(const Condition& c, const engine::Event& event, const engine::World& world, engine::Emit& emit,
              ClusterStatus& status, const Options& options);

  bool open_ = false;
  bool dirty_ = false;
  int64_t start_ = 0;
  std::string target_;
  uint64_t round_ = 0;
  Requeue requeue_;
};

}  // namespace recon::aro

#endif  // RECON_DOMAINS_ARO_SP_CHECKER_H_
