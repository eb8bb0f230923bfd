// What `recon explain` prints: dated, plain-words notes about why a domain
// was where it was. The engine adds condition changes it sees in
// updateStatus actions; reducers add domain notes through Emit::Note.
#ifndef RECON_ENGINE_TIMELINE_H_
#define RECON_ENGINE_TIMELINE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace recon::engine {

struct TimelineEntry {
  uint64_t seq = 0;
  int64_t time_ns = 0;
  std::string domain;
  std::string subject;  // e.g. "Config cluster", "Subscription ns/etcd"
  std::string kind;     // "condition", "state", "wait", "action", "note"
  std::string text;
};

class Timeline {
 public:
  void Add(uint64_t seq, int64_t time_ns, std::string domain, std::string subject, std::string kind,
           std::string text) {
    entries_.push_back(
        {seq, time_ns, std::move(domain), std::move(subject), std::move(kind), std::move(text)});
  }
  const std::vector<TimelineEntry>& entries() const { return entries_; }

 private:
  std::vector<TimelineEntry> entries_;
};

}  // namespace recon::engine

#endif  // RECON_ENGINE_TIMELINE_H_
