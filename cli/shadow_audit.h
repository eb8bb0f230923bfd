// `recon shadow report --audit FILE [--audit-user DOMAIN=USER,...]`: the
// audit log's writes, decoded (adapters/importers/audit_writes.h) and
// handed to the shadow comparison with each domain's operator identities.
#ifndef RECON_CLI_SHADOW_AUDIT_H_
#define RECON_CLI_SHADOW_AUDIT_H_

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "adapters/importers/import.h"
#include "cli/args.h"
#include "engine/engine.h"
#include "shadow/audit_compare.h"
#include "shadow/report.h"

namespace recon::cli {

inline constexpr char kShadowAuditHelp[] =
    "  --audit FILE         judge on kube-apiserver's audit log (--audit-log-path, level RequestResponse)\n"
    "                       instead of the watch: no-op writes, refused writes and deletes count\n"
    "  --audit-user DOMAIN=U1,U2  the operator's user names (user.username; repeatable); besides them\n"
    "                       a write is the operator's when its user agent's program (up to the first\n"
    "                       '/') is one of the domain's --shadow-manager names\n";

// The operators' identities and the domains' kinds, from the flags; an
// error is a usage error (it names the flag). Reads nothing.
absl::StatusOr<shadow::AuditOptions> ParseShadowAudit(const Args& args, const engine::Engine& engine,
                                                      const shadow::Options& options);
// Reads --audit FILE: an error names the file and line. The writes kept
// are those to a kind a domain of any of `engines` declares (each
// engine's kinds are added to options.kinds).
absl::StatusOr<shadow::AuditInput> LoadShadowAudit(const std::string& path,
                                                   std::span<const engine::Engine* const> engines,
                                                   shadow::AuditOptions options);

// What a domain declares may depend on its options (olm.executePlans adds
// the kinds a plan creates), and a log records the options its agent ran
// with (facts.options of its Cluster events), which a replay applies only
// when it reaches them: the audit's writes are kept by kind before that.
// An engine of `domains` with the --set options `sets`, then the options of
// the log's Cluster events (`cluster`) applied as a replay applies them.
absl::StatusOr<std::unique_ptr<engine::Engine>> EngineWithRecordedOptions(
    const std::string& domains, const std::vector<std::string>& sets,
    std::span<const records::EventRecord> cluster);

// `recon agent --shadow --audit-log FILE`: the writes appended to a growing
// audit log since the last read, whole lines only (the API server may be
// half-way through one). A file that shrank (rotated) is read again from its
// start. A malformed line is an error naming it; the lines after it are
// read at the next call.
class AuditLogTail {
 public:
  AuditLogTail(std::string path, const engine::Engine& engine);
  absl::StatusOr<std::vector<shadow::AuditedWrite>> ReadNew();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  adapters::importers::KindFilter filter_;
  uint64_t offset_ = 0;
  uint64_t line_ = 0;  // lines read before offset_
};

}  // namespace recon::cli

#endif  // RECON_CLI_SHADOW_AUDIT_H_
