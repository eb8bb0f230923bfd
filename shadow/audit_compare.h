// Shadow mode judged on the API server's audit log (`recon shadow report
// --audit FILE`): the watch shows only what changed, and never who deleted;
// the audit log has every write a client sent, answered or refused, no-op
// or not. Each prediction is paired with a write of the shadowed operator
// to the same object and of the same class (create, update|patch,
// updateStatus as update|patch of /status, delete); what is left of the
// operator's writes on the domain's kinds is `unpredicted`, with its HTTP
// code and whether it changed nothing. Pure; no I/O.
#ifndef RECON_SHADOW_AUDIT_COMPARE_H_
#define RECON_SHADOW_AUDIT_COMPARE_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/json.h"
#include "engine/world.h"
#include "shadow/compare.h"

namespace recon::shadow {

// One write request as the audit log recorded it at ResponseComplete.
struct AuditedWrite {
  int64_t time_ns = 0;  // stageTimestamp
  std::string id;       // auditID
  std::string user, user_agent;
  std::string verb;     // create, update, patch, delete
  bool status = false;  // to the status subresource
  engine::ObjectKey object;
  int64_t code = 0;  // responseStatus.code
  // The object after the write (responseObject), else what was sent
  // (requestObject); null for a delete or a refused write without either.
  engine::Json body;
  std::string resource_version;  // of the answer, when it is the object
};

// A prediction as the replay made it: its finding (domain, verb, object,
// action, cause, time) and what it would have sent.
struct PredictionRecord {
  Finding finding;
  engine::Json body;
};

struct AuditOptions {
  // Per domain, the operator's identities: user names (user.username)
  // and programs (the user agent up to its first '/': client-go sends
  // "<executable>/<version> ..."; Options::managers by default).
  std::map<std::string, std::vector<std::string>> users, programs;
  // Per domain, the kinds it writes ((group, kind)): the operator's writes
  // to other kinds (Leases, Events) are not its domain's.
  std::map<std::string, std::set<std::pair<std::string, std::string>>> kinds;
  // A write up to this long before a prediction's cause can still be its
  // (both watches see the cause at about the same time).
  int64_t slack_ns = 2'000'000'000;
};

// The findings, decided on `writes` (in log order) instead of the watch.
// `event_times` are the log's event times by seq - 1: a write's finding
// carries the seq of the last event at or before it. Predictions whose
// window reaches past both the log and the audit log are `pending`.
std::vector<Finding> CompareAudit(const std::vector<PredictionRecord>& predictions,
                                  const std::vector<AuditedWrite>& writes, const std::vector<int64_t>& event_times,
                                  const Options& options, const AuditOptions& audit);

}  // namespace recon::shadow

#endif  // RECON_SHADOW_AUDIT_COMPARE_H_
