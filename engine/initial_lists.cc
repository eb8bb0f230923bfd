#include "engine/initial_lists.h"

#include "engine/json.h"

namespace recon::engine {

bool EndsInitialLists(const Event& event) {
  if (event.type != records::EventType::kCluster) return false;
  auto facts = ParseJson(event.facts);
  if (!facts.ok()) return false;
  const Json& synced = Path(*facts, {"synced"});
  return synced.is_boolean() && synced.get<bool>();
}

Event ListedObjectEvent(const Event& at, const ObjectKey& key, const Object* object,
                        records::EventType type) {
  Event e;
  e.seq = at.seq;
  e.time_ns = at.time_ns;
  e.group = key.group;
  e.kind = key.kind;
  e.ns = key.ns;
  e.name = key.name;
  if (object == nullptr) {
    e.type = records::EventType::kDeleted;
    return e;
  }
  e.type = type;
  e.version = object->version();
  e.body = object->body();
  return e;
}

}  // namespace recon::engine
