// Shadow mode's comparison (issue 21): every write a domain computes is a
// prediction of what the real operator will do, matched against what the
// log later shows within a window of event time. A pure function of the
// log: fed the same events and actions in log order, it gives the same
// findings, so `recon shadow report` recomputes offline what a shadow
// agent counted live.
#ifndef RECON_SHADOW_COMPARE_H_
#define RECON_SHADOW_COMPARE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/event.h"
#include "engine/json.h"
#include "engine/world.h"
#include "records/record.h"
#include "shadow/field_diff.h"

namespace recon::shadow {

enum class Result { kMatch, kDiffers, kMissed, kUnpredicted, kPending, kSuperseded };
// "match", "differs", "missed", "unpredicted", "pending", "superseded"
std::string_view ResultName(Result r);

struct Options {
  int64_t window_ns = 120'000'000'000;  // --shadow-window, default 2m
  // Per domain, the field managers of the operator it shadows
  // (metadata.managedFields[].manager): their writes nobody predicted are
  // `unpredicted`.
  std::map<std::string, std::vector<std::string>> managers;
  // Per domain, the conditions whose message is free text
  // (DomainDescriptor::free_text_messages): "Kind/Type", "Kind/*", "*".
  std::map<std::string, std::vector<std::string>> free_text;
  // Per domain, the lists compared as sets (DomainDescriptor::unordered_lists).
  std::map<std::string, std::vector<std::string>> unordered;
  // Per domain, the values compared for presence only (DomainDescriptor::opaque_values).
  std::map<std::string, std::vector<std::string>> opaque;
};

struct Finding {
  Result result = Result::kPending;
  std::string domain;
  // The predicted verb (create, update, updateStatus, delete); for an
  // unpredicted write the event type (Added, Modified).
  std::string verb;
  engine::ObjectKey object;
  // An object of a generated kind (shadow/generated.h) matched by content:
  // the name recon gave it (`object` holds the operator's).
  std::string predicted_name;
  std::string action;            // the prediction's id "<cause>.<index>"; empty for unpredicted
  uint64_t cause = 0;            // seq of the event that caused the prediction (unpredicted: the write's seq)
  int64_t time_ns = 0;           // that event's time
  uint64_t decided = 0;          // match/differs: seq of the event that decided it; 0 otherwise
  std::string manager;           // unpredicted: who wrote
  std::vector<FieldDiff> diffs;  // differs: where
  // Judged on the audit log (shadow/audit_compare.h): the write's auditID,
  // and for an unpredicted one its answer ("HTTP 404", "no-op").
  std::string audit_id, detail;
};

class Comparator {
 public:
  explicit Comparator(Options options);
  ~Comparator();

  // Feeds one event of the log, in order, with the actions the engine
  // computed for it (as `recon replay` prints them). Only create, update,
  // updateStatus and delete are predictions; other verbs are ignored.
  // With `world` (the engine's, after the event), a prediction the object
  // already satisfies when it is made (it differs only in what the
  // comparison ignores: a message, a timestamp) is a match at once.
  void Observe(const engine::Event& event, std::span<const records::ActionRecord> actions,
               const engine::World* world = nullptr);
  // Findings decided since the last call, in the order they were decided.
  std::vector<Finding> TakeDecided();
  // Writes by an operator's manager that only reordered a list its domain
  // declares unordered (upstream builds it from a Go map: the same set in
  // another order is no decision), not judged: how many the log showed.
  uint64_t reordered() const { return reordered_; }
  // At the end of the log: the predictions whose window has not closed
  // yet, as `pending` (nothing decides them before the log goes on).
  std::vector<Finding> Open() const;

 private:
  struct Prediction;
  struct Unclaimed;
  void Expire(int64_t now_ns);
  void OnObject(const engine::Event& event);
  void Predict(const engine::Event& event, const records::ActionRecord& a, const engine::World* world);
  // Generated names: a predicted create and an object the operator
  // created, paired by content; later predictions follow the pairing.
  void Alias(const engine::ObjectKey& predicted, const engine::ObjectKey& observed);
  bool ClaimPredicted(const engine::ObjectKey& key, const std::string& content_key);
  std::optional<engine::ObjectKey> ClaimObserved(const Prediction& p);
  void Unpredicted(const engine::Event& event, const engine::ObjectKey& key, const std::set<std::string>& predicted_by,
                   const std::vector<std::string>& writers, const std::string& content_key);
  DiffRules Rules(const std::string& domain) const;
  // Whether the world already shows the predicted state, and from which seq.
  std::optional<uint64_t> AlreadyHolds(const Prediction& p, const engine::World& world, uint64_t now) const;
  std::vector<FieldDiff> Diff(const Prediction& p, const engine::Json& observed) const;

  Options options_;
  int64_t now_ns_ = 0;
  // Open predictions by object, in the order they were made.
  std::map<engine::ObjectKey, std::vector<Prediction>> open_;
  // The last managedFields of every object the log showed, as
  // {"metadata":{"managedFields":[...]}} (for who-wrote deltas).
  std::map<engine::ObjectKey, engine::Json> last_;
  // Of kinds with unordered lists: the last body, to tell a write that only
  // reordered one (reordered()).
  std::map<engine::ObjectKey, engine::Json> last_bodies_;
  uint64_t reordered_ = 0;
  // Whether `body` differs from `prev` only in the order of `kind`'s unordered lists.
  bool OnlyReordered(std::string_view kind, const engine::Json& prev, const engine::Json& body) const;
  std::vector<Finding> decided_;
  bool any_managers_ = false;
  // Generated names: recon's name -> the kind's prefix; recon's name ->
  // the operator's, once paired; the same by object key.
  std::map<std::string, std::string> generated_, aliases_;
  std::map<engine::ObjectKey, engine::ObjectKey> alias_keys_;
  std::set<engine::ObjectKey> paired_;  // the operator's objects paired with a prediction
  // Objects of a generated kind the operator created that no prediction
  // has claimed yet, oldest first: a prediction made within the window
  // after still claims one; their `unpredicted` waits for it.
  std::vector<Unclaimed> unclaimed_;
  // Predictions made while an earlier one of theirs was open, that
  // matched: action id -> when (kept a window, see Expire).
  std::map<std::string, int64_t> matched_;
};

// A prediction's finding, still undecided: its domain, verb, object,
// action id and cause, made at `time_ns`.
Finding PredictionOf(const records::ActionRecord& a, int64_t time_ns);

// Orders findings for output: by cause seq, action id, domain, then result.
void SortFindings(std::vector<Finding>* findings);

}  // namespace recon::shadow

#endif  // RECON_SHADOW_COMPARE_H_
