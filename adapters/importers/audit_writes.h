// The write requests of a kube-apiserver audit log, as they were sent and
// answered (for `recon shadow report --audit`): every create, update, patch
// and delete at stage ResponseComplete, of an object or its status
// subresource, refused or not, no-op or not, with who sent it. Unlike
// DecodeAuditLogs (audit_log.h), which keeps only what changed the cluster,
// nothing here is dropped for its answer. Lines are parsed one at a time;
// a malformed one is an error naming the source, line and field.
#ifndef RECON_ADAPTERS_IMPORTERS_AUDIT_WRITES_H_
#define RECON_ADAPTERS_IMPORTERS_AUDIT_WRITES_H_

#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "adapters/importers/import.h"
#include "engine/json.h"

namespace recon::adapters::importers {

struct AuditWrite {
  int64_t time_ns = 0;  // stageTimestamp
  std::string audit_id, user, user_agent;
  std::string verb;     // create, update, patch, delete
  bool status = false;  // the status subresource
  std::string group, kind, ns, name;
  int64_t code = 0;  // responseStatus.code
  // The object after the write (responseObject), else the requestObject
  // when it is an object; null otherwise (a delete, a refused patch).
  engine::Json body;
  std::string resource_version;  // of the answer, when it is the object
};

struct AuditWrites {
  std::vector<AuditWrite> writes;  // by stageTimestamp, then auditID
  std::map<std::string, uint64_t> skipped;  // reason -> lines
  uint64_t read = 0;
};

// Kinds come from the bodies, else from `filter` (a plural it declares);
// writes of kinds it does not keep are skipped, counted by reason.
absl::StatusOr<AuditWrites> DecodeAuditWrites(const std::string& name, std::istream& in, const KindFilter& filter);

}  // namespace recon::adapters::importers

#endif  // RECON_ADAPTERS_IMPORTERS_AUDIT_WRITES_H_
