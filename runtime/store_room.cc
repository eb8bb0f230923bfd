#include "runtime/store_room.h"

#include <cstdio>

#include "base/strings.h"

namespace recon::runtime {
namespace {

std::string Mib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

}  // namespace

std::string StoreRoomWarning(const store::StoreSize& size) {
  if (size.quota == 0) return "";
  const double used = static_cast<double>(size.bytes) / static_cast<double>(size.quota);
  if (used < kStoreRoomWarnAt) return "";
  return StrCat("store: the database holds ", Mib(size.bytes), ", ", static_cast<int>(used * 100),
                " % of its ", Mib(size.quota),
                " quota; at 100 % etcd refuses every write (NOSPACE): compact and defragment it, or raise its "
                "--quota-backend-bytes and recon's --etcd-quota-bytes");
}

StoreRoom::Change StoreRoom::Update(const store::StoreSize& size) {
  std::string now = StoreRoomWarning(size);
  Change change = Change::kNone;
  if (warning_.empty() && !now.empty()) change = Change::kStarted;
  if (!warning_.empty() && now.empty()) change = Change::kEnded;
  warning_ = std::move(now);
  return change;
}

}  // namespace recon::runtime
