// What a reflector knows of one resource type (namespace/name → the last
// resourceVersion and body), and the diff of a fresh list against it: new
// objects Added, changed ones (another resourceVersion) Modified, vanished
// ones Deleted, unchanged ones nothing. Used after a relist (410, restart
// of a watch that lost events) and at agent start against the World the
// log already holds, so nothing is lost or duplicated.
#ifndef RECON_ADAPTERS_K8S_RELIST_H_
#define RECON_ADAPTERS_K8S_RELIST_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "adapters/k8s/objects.h"
#include "records/record.h"

namespace recon::k8s {

using ObjectCache = std::map<std::pair<std::string, std::string>, ListedObject>;  // (ns, name)

// Replaces `cache` with `listed` and returns the events that take an
// observer of the old cache to the new state: Added and Modified in
// (namespace, name) order, then Deleted in that order.
// With `unchanged`, the listed objects that need no event are added there
// too (as Modified records with the body just listed).
std::vector<records::EventRecord> DiffRelist(ObjectCache& cache, std::vector<ListedObject> listed,
                                             int64_t time_ns,
                                             std::vector<records::EventRecord>* unchanged = nullptr);

// Applies one watch event to the cache; false when it changes nothing (an
// ADDED/MODIFIED of the resourceVersion we hold, a DELETED of an unknown
// object): such an event is not delivered twice.
bool ApplyToCache(ObjectCache& cache, records::EventType type, const ListedObject& object);

records::EventRecord MakeEvent(records::EventType type, const ListedObject& object, int64_t time_ns);

}  // namespace recon::k8s

#endif  // RECON_ADAPTERS_K8S_RELIST_H_
