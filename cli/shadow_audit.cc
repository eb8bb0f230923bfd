#include "cli/shadow_audit.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/str_split.h"
#include "adapters/importers/audit_writes.h"
#include "base/strings.h"
#include "cli/domains.h"

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

namespace {

// The kinds the engines' domains declare: the writes worth keeping.
adapters::importers::KindFilter DomainKinds(std::span<const engine::Engine* const> engines) {
  adapters::importers::KindFilter filter;
  std::vector<engine::ResourceUse> uses;
  for (const engine::Engine* engine : engines)
    for (const auto& r : engine->reducers())
      for (const auto& u : r->Describe().resources) uses.push_back(u);
  for (auto& u : engine::MergeResourceUses(uses)) filter.types.push_back(std::move(u.type));
  return filter;
}

std::vector<shadow::AuditedWrite> ToAudited(std::vector<adapters::importers::AuditWrite> decoded) {
  std::vector<shadow::AuditedWrite> out;
  for (auto& w : decoded) {
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
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace

absl::StatusOr<shadow::AuditInput> LoadShadowAudit(const std::string& path,
                                                   std::span<const engine::Engine* const> engines,
                                                   shadow::AuditOptions options) {
  shadow::AuditInput out;
  out.options = std::move(options);
  for (const engine::Engine* engine : engines)
    for (const auto& r : engine->reducers())
      for (const auto& u : r->Describe().resources)
        out.options.kinds[std::string(r->Domain())].insert({u.type.group, u.type.kind});
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(recon::StrCat(path, ": cannot open"));
  auto decoded = adapters::importers::DecodeAuditWrites(path, in, DomainKinds(engines));
  if (!decoded.ok()) return decoded.status();
  out.writes = ToAudited(std::move(decoded->writes));
  return out;
}

absl::StatusOr<std::unique_ptr<engine::Engine>> EngineWithRecordedOptions(
    const std::string& domains, const std::vector<std::string>& sets,
    std::span<const records::EventRecord> cluster) {
  auto engine = MakeEngine(domains, sets);
  if (!engine.ok()) return engine.status();
  std::vector<records::ActionRecord> ignored;
  for (size_t i = 0; i < cluster.size(); ++i) {
    // Only the options matter: a fresh engine, seqs 1.. of its own.
    if (auto s = (*engine)->Step(engine::Event::FromRecord(i + 1, cluster[i]), &ignored); !s.ok()) return s;
  }
  return engine;
}

AuditLogTail::AuditLogTail(std::string path, const engine::Engine& engine)
    : path_(std::move(path)) {
  const engine::Engine* one[] = {&engine};
  filter_ = DomainKinds(one);
}

absl::StatusOr<std::vector<shadow::AuditedWrite>> AuditLogTail::ReadNew() {
  std::ifstream in(path_, std::ios::binary);
  if (!in) return std::vector<shadow::AuditedWrite>{};  // not written yet
  in.seekg(0, std::ios::end);
  const uint64_t size = static_cast<uint64_t>(in.tellg());
  if (size < offset_) offset_ = line_ = 0;  // rotated: a new file
  if (size == offset_) return std::vector<shadow::AuditedWrite>{};
  std::string chunk(size - offset_, '\0');
  in.seekg(static_cast<std::streamoff>(offset_));
  in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
  chunk.resize(static_cast<size_t>(in.gcount()));
  const size_t end = chunk.rfind('\n');
  if (end == std::string::npos) return std::vector<shadow::AuditedWrite>{};  // a line still being written
  chunk.resize(end + 1);
  const uint64_t first_line = line_;
  offset_ += chunk.size();
  line_ += static_cast<uint64_t>(std::count(chunk.begin(), chunk.end(), '\n'));
  std::istringstream lines(chunk);
  auto decoded = adapters::importers::DecodeAuditWrites(
      recon::StrCat(path_, " (from line ", first_line + 1, ")"), lines, filter_);
  if (!decoded.ok()) return decoded.status();
  return ToAudited(std::move(decoded->writes));
}

}  // namespace recon::cli
