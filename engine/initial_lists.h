// A live adapter's initial lists in the log: the Cluster fact `synced` is
// false from their start and true from the event that ends them
// (World::Synced). A domain decides nothing from a partial first list; it
// catches up at that event.
#ifndef RECON_ENGINE_INITIAL_LISTS_H_
#define RECON_ENGINE_INITIAL_LISTS_H_

#include "engine/event.h"
#include "engine/world.h"

namespace recon::engine {

// True for the Cluster event that ends a live adapter's initial lists
// (its facts hold `"synced": true`).
bool EndsInitialLists(const Event& event);

// The event a domain hands to its own handler for an object the lists
// showed, at `at`'s seq and time: the object as the world holds it (views
// into `object`), or, with a null `object`, a Deleted of `key`'s object.
Event ListedObjectEvent(const Event& at, const ObjectKey& key, const Object* object, records::EventType type);

}  // namespace recon::engine

#endif  // RECON_ENGINE_INITIAL_LISTS_H_
