#include "store/event_store.h"

#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "records/codec.h"

namespace recon::store {

absl::StatusOr<records::EventRecord> ReadEvent(EventStore& store, uint64_t seq) {
  auto it = store.ReadEvents(seq, seq);
  if (!it.ok()) return it.status();
  if (!(*it)->Valid()) {
    if (!(*it)->status().ok()) return (*it)->status();
    return absl::NotFoundError(recon::StrCat("seq ", seq, " is not in the log"));
  }
  return records::DecodeEvent((*it)->payload());
}

}  // namespace recon::store
