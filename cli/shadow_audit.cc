#include "cli/shadow_audit.h"

#include <algorithm>
#include <fstream>

#include "absl/strings/str_split.h"
#include "adapters/importers/audit_writes.h"
#include "base/strings.h"

namespace recon::cli {

absl::StatusOr<shadow::AuditOptions> ParseShadowAudit(const Args& args, const engine::Engine& engine,
                                                      const shadow::Options& options) {
  shadow::AuditOptions out;
  out.programs = options.managers;
  std::vector<std::string> running;
  for (const auto& r : engine.reducers()) {
    running.emplace_back(r->Domain());
    for (const auto& u : r->Describe().resources)
      out.kinds[std::string(r->Domain())].insert({u.type.group, u.type.kind});
  }
  for (const auto& spec : args.GetAll("audit-user")) {
    size_t eq = spec.find('=');
    std::string domain = spec.substr(0, eq == std::string::npos ? 0 : eq);
    if (eq == std::string::npos || std::find(running.begin(), running.end(), domain) == running.end())
      return absl::InvalidArgumentError(
          recon::StrCat("--audit-user ", spec, ": expected DOMAIN=USER[,USER...] for a domain this run has"));
    for (absl::string_view u : absl::StrSplit(spec.substr(eq + 1), ',', absl::SkipEmpty()))
      out.users[domain].emplace_back(u.data(), u.size());
  }
  return out;
}

absl::StatusOr<shadow::AuditInput> LoadShadowAudit(const std::string& path, const engine::Engine& engine,
                                                   shadow::AuditOptions options) {
  shadow::AuditInput out;
  out.options = std::move(options);
  adapters::importers::KindFilter filter;
  std::vector<engine::ResourceUse> uses;
  for (const auto& r : engine.reducers())
    for (const auto& u : r->Describe().resources) uses.push_back(u);
  for (auto& u : engine::MergeResourceUses(uses)) filter.types.push_back(std::move(u.type));
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(recon::StrCat(path, ": cannot open"));
  auto decoded = adapters::importers::DecodeAuditWrites(path, in, filter);
  if (!decoded.ok()) return decoded.status();
  for (auto& w : decoded->writes) {
    shadow::AuditedWrite a;
    a.time_ns = w.time_ns;
    a.id = std::move(w.audit_id);
    a.user = std::move(w.user);
    a.user_agent = std::move(w.user_agent);
    a.verb = std::move(w.verb);
    a.status = w.status;
    a.object = {std::move(w.group), std::move(w.kind), std::move(w.ns), std::move(w.name)};
    a.code = w.code;
    a.body = std::move(w.body);
    a.resource_version = std::move(w.resource_version);
    out.writes.push_back(std::move(a));
  }
  return out;
}

}  // namespace recon::cli
