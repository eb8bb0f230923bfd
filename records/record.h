// Owned, plain-data forms of events and actions: what producers (JSONL
// import, adapters, reducers) hand to an EventStore. The store encodes them
// as Cap'n Proto records (schema/event.capnp, schema/action.capnp).
#ifndef RECON_RECORDS_RECORD_H_
#define RECON_RECORDS_RECORD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace recon::records {

enum class EventType : uint8_t {
  kAdded = 0,
  kModified = 1,
  kDeleted = 2,
  kTimer = 3,
  kProbe = 4,
  kActionResult = 5,
  kCluster = 6,
  kContent = 7,
};
inline constexpr int kEventTypeCount = 8;

// "Added", "Modified", ... as written in JSONL.
std::string_view EventTypeName(EventType type);
std::optional<EventType> ParseEventType(std::string_view name);

struct ObjectIdRecord {
  std::string group;  // "" for the core group
  std::string version;
  std::string kind;
  std::string ns;  // "" for cluster-scoped
  std::string name;
  std::string uid;
  std::string resource_version;
};

struct ProbeRecord {
  std::string name;
  std::string target;
  bool ok = false;
  std::optional<int32_t> status;
  std::string detail;
  std::string data;  // JSON or empty
};

struct ActionResultRecord {
  std::string action;
  bool ok = false;
  std::optional<int32_t> status;
  std::string error;
  // A successful write: the object's metadata as the server returned it.
  std::string resource_version;
  std::string uid;
  // The server's warnings on the write (HTTP `Warning: 299` headers: an
  // unknown field dropped, a deprecated API), a JSON array of their texts
  // in the order given; "" when none.
  std::string warnings;
};

using ContentFiles = std::vector<std::pair<std::string, std::string>>;

struct EventRecord {
  int64_t time_ns = 0;
  EventType type = EventType::kAdded;
  ObjectIdRecord object;  // Added/Modified/Deleted
  std::string body;       // object JSON as received
  std::string timer;
  ProbeRecord probe;
  ActionResultRecord action_result;
  std::string cluster_facts;  // JSON object as received
  std::string content_name;
  std::string content_digest;  // computed by the store when empty
  ContentFiles content_files;  // sorted by path; stored once per digest
};

struct ActionRecord {
  uint64_t cause_seq = 0;
  uint32_t index = 0;
  std::string domain;
  std::string verb;
  ObjectIdRecord object;
  std::string body;
  std::string timer;
  int64_t at_ns = 0;
  std::string probe;
  std::string target;
};

// "sha256:<hex>" over the canonical encoding of the files (sorted by path;
// each as u64 path length, path, u64 data length, data; little endian).
std::string ContentDigest(const ContentFiles& files);

}  // namespace recon::records

#endif  // RECON_RECORDS_RECORD_H_
