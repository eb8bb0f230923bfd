// A live adapter's initial lists in the log: the Cluster fact `synced` is
// false from their start and true from the event that ends them
// (World::Synced). A domain decides nothing from a partial first list; it
// catches up at that event.
#ifndef RECON_ENGINE_INITIAL_LISTS_H_
#define RECON_ENGINE_INITIAL_LISTS_H_

#include "engine/event.h"

namespace recon::engine {

// True for the Cluster event that ends a live adapter's initial lists
// (its facts hold `"synced": true`).
bool EndsInitialLists(const Event& event);

}  // namespace recon::engine

#endif  // RECON_ENGINE_INITIAL_LISTS_H_
