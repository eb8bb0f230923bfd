// A live adapter's initial lists: nothing is decided from a partial world
// (upstream's controllers start once their caches have synced). Each object
// with an event in the lists is remembered and, at the Cluster event that
// ends them, handed to its controllers as the world then holds it: an
// Added if one of its events was (a first read), a Deleted if it is gone.
#include "domains/aro/aro_reducer.h"
#include "domains/aro/common.h"
#include "engine/initial_lists.h"

namespace recon::aro {

void AroReducer::DeferObject(const engine::Event& event) {
  engine::ObjectKey key{std::string(event.group), std::string(event.kind), std::string(event.ns),
                        std::string(event.name)};
  bool& added = deferred_objects_[std::move(key)];
  added = added || event.type == records::EventType::kAdded;
}

bool AroReducer::ReconcileListed(const engine::Event& event, const engine::World& world, engine::Emit& emit) {
  if (deferred_objects_.empty() || !engine::EndsInitialLists(event)) return false;
  std::map<engine::ObjectKey, bool> listed = std::move(deferred_objects_);
  deferred_objects_.clear();
  bool co_due = false;
  subnets_.Hold(true);
  for (const auto& [key, added] : listed) {
    engine::Event e =
        engine::ListedObjectEvent(event, key, world.Get(key.group, key.kind, key.ns, key.name),
                                  added ? records::EventType::kAdded : records::EventType::kModified);
    co_due |= OnObjectEvent(e, world, emit);
  }
  subnets_.Hold(false);
  return co_due;
}

Json AroReducer::DeferredToJson() const {
  Json out = Json::array();
  for (const auto& [key, added] : deferred_objects_)
    out.push_back(Json{{"group", key.group},
                       {"kind", key.kind},
                       {"namespace", key.ns},
                       {"name", key.name},
                       {"added", added}});
  return out;
}

void AroReducer::DeferredFromJson(const Json& j) {
  deferred_objects_.clear();
  if (!j.is_array()) return;
  for (const Json& o : j) {
    engine::ObjectKey key{Str(o, "group"), Str(o, "kind"), Str(o, "namespace"), Str(o, "name")};
    const Json& added = engine::Path(o, {"added"});
    deferred_objects_[std::move(key)] = added.is_boolean() && added.get<bool>();
  }
}

}  // namespace recon::aro
