// What a stopped agent left unfinished: actions logged but never answered.
// The agent logs an action before it dispatches it and learns the outcome
// only from a later event (an ActionResult, a Timer, a Probe answer), so a
// kill in between leaves actions whose fate the log does not know. On
// restart the runtime re-arms the timers and probes, and settles the writes
// with an Interrupted result (runtime/runtime.cc).
//
// Finding them means reading the log in order. So that a restart does not
// read a long-running agent's whole log, the runtime keeps a checkpoint of
// the scan in the store (aux record "unanswered", written with each engine
// snapshot) and a restart reads only what came after it. Its payload:
//   "recon-unanswered-1\n", then 8-byte big-endian `through` (every event
//   and every action of a cause <= through was read) and `last_cause`, then
//   for each still-open action (writes per work key, timers, probes) a
//   4-byte big-endian length and the action's Cap'n Proto payload
//   (store/codec.h EncodeActionPayload).
// The checkpoint is a cache: one that does not decode, or that a compaction
// left behind, is ignored and the log is read from its start.
#ifndef RECON_RUNTIME_UNANSWERED_H_
#define RECON_RUNTIME_UNANSWERED_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "records/record.h"
#include "store/event_store.h"

namespace recon::runtime {

// The error of the failed ActionResult the runtime logs, on restart, for
// each write the stopped agent left unanswered (runtime/runtime.cc). Domains
// that track writes in flight re-decide on it; the runtime does not retry it.
inline constexpr std::string_view kInterruptedError =
    "Interrupted: the agent stopped before this write's result was seen; it may or may not have been "
    "applied, "
    "and the re-listed cluster state decides what happens next";

// The store's aux record holding the checkpoint.
inline constexpr std::string_view kUnansweredAux = "unanswered";

struct Unanswered {
  // create/update/updateStatus/delete/patch/importImage without an
  // ActionResult: they may or may not have reached the cluster.
  std::vector<records::ActionRecord> writes;
  // The latest setTimer of each timer that has not fired since, and probes
  // without an answer: safe to ask again (the adapter's timers and probes
  // died with the process).
  std::vector<records::ActionRecord> rearm;
  // The newest cause seq with recorded actions: a kill between appending a
  // burst's events and recording its actions leaves events after this one
  // whose actions exist nowhere (runtime/runtime.cc reduces them again).
  uint64_t last_cause = 0;
};

// The scan itself, resumable: Advance reads events and actions after
// through() in log order (an action caused by seq s sits between events s
// and s + 1).
class UnansweredScan {
 public:
  absl::Status Advance(store::EventStore& store, uint64_t to);
  uint64_t through() const { return through_; }
  Unanswered Result() const;

  std::string Encode() const;
  static absl::StatusOr<UnansweredScan> Decode(std::string_view data);

 private:
  void OnAction(records::ActionRecord a);

  uint64_t through_ = 0;
  uint64_t last_cause_ = 0;
  // Unanswered writes by work key (runtime/work_queue.h): the queue keeps
  // only the latest action per key, so an answer settles every earlier
  // action of its key too (those were superseded, never sent).
  std::map<std::string, std::map<std::pair<uint64_t, uint32_t>, records::ActionRecord>> writes_;
  std::map<std::string, std::string> key_of_;          // id → work key, while unanswered
  std::map<std::string, records::ActionRecord> timers_;                          // name → latest setTimer
  std::map<std::pair<std::string, std::string>, records::ActionRecord> probes_;  // (probe, target)
};

// The checkpoint in `store` (when it decodes and the log still holds what
// follows it) advanced to the end of the log; otherwise a scan of the
// whole log. `from_checkpoint`, when given, says which it was.
absl::StatusOr<UnansweredScan> ScanUnanswered(store::EventStore& store, bool* from_checkpoint = nullptr);

// Advances the stored checkpoint to the end of the log and stores it. Call
// it only when every event's actions are recorded (the runtime does, with
// each snapshot): a scan that has passed a seq never reads actions recorded
// for it later, so a restart's scan is never stored (the actions it
// recovers are recorded after it).
absl::Status CheckpointUnanswered(store::EventStore& store);

// The whole log, read from its start (what ScanUnanswered must agree with).
absl::StatusOr<Unanswered> FindUnanswered(store::EventStore& store);

}  // namespace recon::runtime

#endif  // RECON_RUNTIME_UNANSWERED_H_
