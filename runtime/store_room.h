// The room the log takes where it lives (issue 51): a store with a quota
// (etcd refuses every write with NOSPACE once its database reaches
// --quota-backend-bytes) gets a warning past 70 % of it, in the agent's log
// and /readyz, long before writes fail. The figure is recon_store_bytes.
#ifndef RECON_RUNTIME_STORE_ROOM_H_
#define RECON_RUNTIME_STORE_ROOM_H_

#include <string>

#include "store/event_store.h"

namespace recon::runtime {

inline constexpr double kStoreRoomWarnAt = 0.7;

// The warning for `size`, or "" below kStoreRoomWarnAt of its quota (and
// for a store without one).
std::string StoreRoomWarning(const store::StoreSize& size);

// Tracks the warning across checks so the log says it when it starts and
// when it ends, not at every check.
class StoreRoom {
 public:
  enum class Change { kNone, kStarted, kEnded };
  Change Update(const store::StoreSize& size);
  const std::string& warning() const { return warning_; }

 private:
  std::string warning_;
};

}  // namespace recon::runtime

#endif  // RECON_RUNTIME_STORE_ROOM_H_
