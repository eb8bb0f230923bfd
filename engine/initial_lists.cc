#include "engine/initial_lists.h"

#include "engine/json.h"

namespace recon::engine {

bool EndsInitialLists(const Event& event) {
  if (event.type != EventType::kCluster) return false;
  auto facts = ParseJson(event.facts);
  if (!facts.ok()) return false;
  const Json& synced = Path(*facts, {"synced"});
  return synced.is_boolean() && synced.get<bool>();
}

}  // namespace recon::engine
