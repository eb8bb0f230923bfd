// A kube-apiserver audit log (`--audit-log-path`: one audit.k8s.io/v1 Event
// per line) decoded into object events. Each successful write (create,
// update, patch, delete, deletecollection; the status subresource too) at
// stage ResponseComplete whose responseObject was logged (level
// RequestResponse) becomes Added/Modified/Deleted at its stageTimestamp;
// every other line is counted under the reason it was skipped. Events are
// ordered by stageTimestamp, then auditID (lines of several apiservers'
// logs interleave). A malformed line is an error naming the source, line and
// field, and nothing is returned.
#ifndef RECON_ADAPTERS_IMPORTERS_AUDIT_LOG_H_
#define RECON_ADAPTERS_IMPORTERS_AUDIT_LOG_H_

#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "adapters/importers/import.h"

namespace recon::adapters::importers {

struct AuditSource {
  std::string name;       // a path or "-", for messages
  std::string_view data;  // the whole file
};

// Several sources (e.g. kube-apiserver's and openshift-apiserver's logs)
// merge into one ordering; a request logged by two of them (same auditID,
// both with the answer) counts once.
absl::StatusOr<ImportResult> DecodeAuditLogs(const std::vector<AuditSource>& sources,
                                             const KindFilter& filter);

// The same, read line by line: a log of gigabytes is never held whole
// (only the events it yields are). Names are for messages.
absl::StatusOr<ImportResult> DecodeAuditStreams(
    const std::vector<std::pair<std::string, std::istream*>>& sources, const KindFilter& filter);

}  // namespace recon::adapters::importers

#endif  // RECON_ADAPTERS_IMPORTERS_AUDIT_LOG_H_
