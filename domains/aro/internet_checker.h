// InternetChecker (reference §3): one probe action per URL in
// spec.internetChecker.urls; the Probe answers close the round and set
// InternetReachableFrom<Role>. Hourly on success, backoff on failure.
#ifndef RECON_DOMAINS_ARO_INTERNET_CHECKER_H_
#define RECON_DOMAINS_ARO_INTERNET_CHECKER_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "domains/aro/cluster_status.h"
#include "domains/aro/options.h"
#include "domains/aro/requeue.h"
#include "engine/emit.h"
#include "engine/event.h"
#include "engine/world.h"

namespace recon::aro {

inline constexpr std::string_view kInternetTimer = "aro/internet";

class InternetChecker {
 public:
  InternetChecker() : requeue_(std::string(kInternetTimer)) {}

  static std::string ProbeName(const Options& options);
  static std::string ConditionType(const Options& options);

  void Trigger(const engine::Event& event, const engine::World& world, engine::Emit& emit,
               ClusterStatus& status, const Options& options);
  void OnTimer(const engine::Event& event, const engine::World& world, engine::Emit& emit,
               ClusterStatus& status, const Options& options);
  // True when the probe was ours.
  bool OnProbe(const engine::Event& event, const engine::World& world, engine::Emit& emit,
               ClusterStatus& status, const Options& options);

  // Read-only views for explain.
  bool open() const { return open_; }
  bool dirty() const { return dirty_; }
  int64_t start() const { return start_; }
  // The seq of the event that started the open (or last) round: its notes name it.
  uint64_t round() const { return round_; }
  // The URLs of the open round and whether each was answered.
  std::vector<std::pair<std::string, bool>> Urls() const;
  const Requeue& requeue() const { return requeue_; }
  engine::Json ToJson() const;
  void FromJson(const engine::Json& j);

 private:
  struct Slot {
    std::string url;
    bool answered = false;
    std::string error;  // "" when reachable
  };
  void Start(const engine::Event& event, const engine::World& world, engine::Emit& emit,
             ClusterStatus& status, const Options& options);
  void Finish(const engine::Event& event, const engine::World& world, engine::Emit& emit,
              ClusterStatus& status, const Options& options);

  std::vector<Slot> slots_;
  bool open_ = false;
  bool dirty_ = false;
  int64_t start_ = 0;
  uint64_t round_ = 0;
  Requeue requeue_;
};

}  // namespace recon::aro

#endif  // RECON_DOMAINS_ARO_INTERNET_CHECKER_H_
