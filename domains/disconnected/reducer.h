// The disconnected domain: the DisconnectedFriendlyApp operator (the
// simple-disconnected-operator example project) as a pure reducer. For each
// instance it keeps two Deployments, busybox-<name> and sleeper-<name>, in
// sync with the images the operator's environment names (DFA_BUSYBOX_IMAGE,
// DFA_SLEEPER_IMAGE, fed from RELATED_IMAGE_* in the CSV) or the hard-coded
// fallbacks, and writes the resolved and default images to its status.
//   reducer.cc    dispatch, options, resources, snapshot, write bookkeeping
//   sync.cc       one instance: its Deployments and status
//   explain.cc    recon explain notes
#ifndef RECON_DOMAINS_DISCONNECTED_REDUCER_H_
#define RECON_DOMAINS_DISCONNECTED_REDUCER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "domains/disconnected/operator_env.h"
#include "engine/reducer.h"

namespace recon::disconnected {

class DisconnectedReducer : public engine::Reducer {
 public:
  std::string_view Domain() const override;
  std::vector<engine::OptionSpec> Options() const;
  std::vector<engine::ResourceUse> Resources() const;
  engine::DomainDescriptor Describe() const override {
    return {Options(), Resources(), {}, /*redecides_failed_writes=*/false,
            /*free_text_messages=*/{}};
  }
  absl::Status SetOption(std::string_view key, std::string_view value) override;
  // Under `recon explain` also notes (Emit::Note) why each Deployment was
  // created or updated, operator environment changes, deleted instances.
  void Reduce(const engine::Event& event, const engine::World& world, engine::Emit& emit) override;
  absl::Status Snapshot(engine::SnapshotWriter& writer) const override;
  absl::Status Restore(engine::SnapshotReader& reader) override;

 private:
  struct Ctx {
    const engine::Event& ev;
    const engine::World& world;
    engine::Emit& emit;
    const OperatorEnv& env;
  };
  // sync.cc
  void SyncInstance(Ctx& c, const engine::Object& instance);
  void SyncAll(Ctx& c);
  // The instances a Deployment event concerns (by ownerReference or name).
  std::vector<const engine::Object*> OwnersOf(const engine::World& world, const engine::Event& ev) const;

  // reducer.cc
  // Emits unless a write to the same object is still in flight (not shown
  // by the world yet), or the same write was refused and the object has
  // not changed since (engine/write_tracker.h); returns whether emitted.
  bool Write(Ctx& c, std::string_view verb, const engine::Json& object);
  bool IsOperatorDeployment(const engine::Event& ev) const;
  static std::string KeyOf(std::string_view group, std::string_view kind, std::string_view ns,
                           std::string_view name);

  // A periodic full sync (option resyncPeriod, timer disconnected/resync),
  // as a controller's SyncPeriod: writes answered ok whose echo never came
  // (an add and a delete both lost to a relist) stop holding back the next.
  void Resync(Ctx& c);

  EnvSource source_;
  int64_t resync_ns_ = 0;  // 0: off
  std::string resync_text_ = "0";
  OperatorEnv env_;  // as last seen (for change notes; reducer state)
};

std::unique_ptr<engine::Reducer> MakeReducer();

}  // namespace recon::disconnected

#endif  // RECON_DOMAINS_DISCONNECTED_REDUCER_H_
