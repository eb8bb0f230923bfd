#include "adapters/k8s/relist.h"

namespace recon::k8s {

records::EventRecord MakeEvent(records::EventType type, const ListedObject& object, int64_t time_ns) {
  records::EventRecord r;
  r.time_ns = time_ns;
  r.type = type;
  r.object = object.id;
  r.body = object.body;
  return r;
}

std::vector<records::EventRecord> DiffRelist(ObjectCache& cache, std::vector<ListedObject> listed,
                                             int64_t time_ns, std::vector<records::EventRecord>* unchanged) {
  ObjectCache fresh;
  for (auto& o : listed) {
    auto key = std::make_pair(o.id.ns, o.id.name);
    fresh.insert_or_assign(std::move(key), std::move(o));
  }
  std::vector<records::EventRecord> out;
  // Vanished objects go last, as client-go's DeltaFIFO.Replace queues them:
  // a replacement (a new CSV for the one it replaces) is seen before its
  // predecessor's deletion, never a moment with neither.
  std::vector<records::EventRecord> deleted;
  auto old_it = cache.begin();
  auto new_it = fresh.begin();
  while (old_it != cache.end() || new_it != fresh.end()) {
    if (new_it == fresh.end() || (old_it != cache.end() && old_it->first < new_it->first)) {
      deleted.push_back(MakeEvent(records::EventType::kDeleted, old_it->second, time_ns));
      ++old_it;
    } else if (old_it == cache.end() || new_it->first < old_it->first) {
      out.push_back(MakeEvent(records::EventType::kAdded, new_it->second, time_ns));
      ++new_it;
    } else {
      if (old_it->second.id.resource_version != new_it->second.id.resource_version) {
        out.push_back(MakeEvent(records::EventType::kModified, new_it->second, time_ns));
      } else if (unchanged != nullptr) {
        unchanged->push_back(MakeEvent(records::EventType::kModified, new_it->second, time_ns));
      }
      ++old_it;
      ++new_it;
    }
  }
  out.insert(out.end(), std::make_move_iterator(deleted.begin()), std::make_move_iterator(deleted.end()));
  cache = std::move(fresh);
  return out;
}

bool ApplyToCache(ObjectCache& cache, records::EventType type, const ListedObject& object) {
  auto key = std::make_pair(object.id.ns, object.id.name);
  auto it = cache.find(key);
  if (type == records::EventType::kDeleted) {
    if (it == cache.end()) return false;
    cache.erase(it);
    return true;
  }
  if (it != cache.end() && it->second.id.resource_version == object.id.resource_version) return false;
  cache.insert_or_assign(std::move(key), object);
  return true;
}

}  // namespace recon::k8s
