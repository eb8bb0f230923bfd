// The event as reducers see it: string views into the record it came from
// (a Cap'n Proto message read from the store, or a parsed JSONL line). No
// field is copied; the view lives as long as the record.
#ifndef RECON_ENGINE_EVENT_H_
#define RECON_ENGINE_EVENT_H_

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "records/record.h"
#include "schema/event.capnp.h"

namespace recon::engine {

struct Event {
  uint64_t seq = 0;  // 0 for inputs applied before line 1 (options, --set content)
  int64_t time_ns = 0;
  records::EventType type = records::EventType::kAdded;

  // Added / Modified / Deleted; uid and resource_version also for an
  // ActionResult of a successful write (what the server returned).
  std::string_view group, version, kind, ns, name, uid, resource_version;
  std::string_view body;  // object JSON as received

  std::string_view timer;  // Timer

  // Probe
  std::string_view probe, target, detail, data;
  bool ok = false;  // Probe and ActionResult
  std::optional<int32_t> status;

  // ActionResult; `warnings`: the server's (HTTP 299), a JSON array of
  // their texts, "" when none.
  std::string_view action, error, warnings;

  std::string_view facts;  // Cluster: JSON object

  // Content. The engine resolves the files (from the line or the store).
  std::string_view content_name, content_digest;
  const records::ContentFiles* content_files = nullptr;

  // Added / Modified: the body already parsed, when a pipelined replay's
  // decode stage parsed it ahead (the World adopts it; null otherwise).
  std::shared_ptr<const nlohmann::ordered_json> parsed;

  bool IsObject() const {
    return type == records::EventType::kAdded || type == records::EventType::kModified ||
           type == records::EventType::kDeleted;
  }

  static Event FromRecord(uint64_t seq, const records::EventRecord& r);
  static Event FromCapnp(schema::Event::Reader r);
};

}  // namespace recon::engine

#endif  // RECON_ENGINE_EVENT_H_
