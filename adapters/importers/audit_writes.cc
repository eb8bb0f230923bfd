#include "adapters/importers/audit_writes.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "absl/status/status.h"
#include "base/strings.h"
#include "engine/time_format.h"

namespace recon::adapters::importers {
namespace {

using engine::Json;

constexpr char kNotComplete[] = "not at stage ResponseComplete";
constexpr char kNotWrites[] = "reads and other verbs (not create, update, patch, delete)";
constexpr char kOtherSubresource[] = "writes to subresources other than status";
constexpr char kUnknownKind[] = "writes of a kind no domain declares";
constexpr char kRepeated[] = "repeated auditIDs";

bool IsObject(const Json& j) {
  return j.is_object() && j.contains("metadata") && engine::GetString(j, {"kind"}) != "Status" &&
         engine::GetString(j, {"kind"}) != "DeleteOptions";
}

absl::Status Err(const std::string& name, uint64_t line, std::string_view field, std::string_view what) {
  return absl::InvalidArgumentError(recon::StrCat(name, ":", line, ": ", field.empty() ? "" : "\"", field,
                                                  field.empty() ? "" : "\": ", what));
}

class Decoder {
 public:
  Decoder(const std::string& name, const KindFilter& filter) : name_(name), filter_(filter) {}

  absl::Status Line(std::string_view text, uint64_t line) {
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (text.find_first_not_of(" \t") == std::string_view::npos) return absl::OkStatus();
    ++out_.read;
    auto parsed = engine::ParseJson(text);
    if (!parsed.ok()) return Err(name_, line, "", recon::StrCat("malformed JSON (", parsed.status().message(), ")"));
    const Json& j = *parsed;
    if (!j.is_object() || engine::GetString(j, {"kind"}) != "Event")
      return Err(name_, line, "kind", "expected an audit.k8s.io/v1 Event");
    if (engine::GetString(j, {"stage"}) != "ResponseComplete") return Skip(kNotComplete);
    std::string verb = engine::GetString(j, {"verb"});
    if (verb != "create" && verb != "update" && verb != "patch" && verb != "delete") return Skip(kNotWrites);
    const Json& ref = engine::Path(j, {"objectRef"});
    if (!ref.is_object()) return Err(name_, line, "objectRef", "missing on a write");
    std::string sub = engine::GetString(ref, {"subresource"});
    if (!sub.empty() && sub != "status") return Skip(kOtherSubresource);
    AuditWrite w;
    w.audit_id = engine::GetString(j, {"auditID"});
    if (w.audit_id.empty()) return Err(name_, line, "auditID", "expected a non-empty string");
    if (!ids_.insert(w.audit_id).second) return Skip(kRepeated);
    auto time = engine::ParseRfc3339(engine::GetString(j, {"stageTimestamp"}));
    if (!time.ok()) return Err(name_, line, "stageTimestamp", "expected an RFC 3339 time");
    w.time_ns = *time;
    w.verb = verb;
    w.status = sub == "status";
    w.user = engine::GetString(j, {"user", "username"});
    w.user_agent = engine::GetString(j, {"userAgent"});
    const Json& code = engine::Path(j, {"responseStatus", "code"});
    w.code = code.is_number_integer() ? code.get<int64_t>() : 0;
    const Json& response = engine::Path(j, {"responseObject"});
    const Json& request = engine::Path(j, {"requestObject"});
    const Json* body = IsObject(response) ? &response : IsObject(request) ? &request : nullptr;
    if (body != nullptr) w.body = *body;
    if (IsObject(response)) w.resource_version = engine::GetString(response, {"metadata", "resourceVersion"});
    w.group = engine::GetString(ref, {"apiGroup"});
    w.ns = engine::GetString(ref, {"namespace"});
    w.name = engine::GetString(ref, {"name"});
    if (w.name.empty() && body != nullptr) w.name = engine::GetString(*body, {"metadata", "name"});
    if (body != nullptr) w.kind = engine::GetString(*body, {"kind"});
    if (const auto* t = filter_.ByResource(w.group, engine::GetString(ref, {"resource"}))) w.kind = t->kind;
    if (w.kind.empty() || !filter_.Keeps(w.group, w.kind)) return Skip(kUnknownKind);
    out_.writes.push_back(std::move(w));
    return absl::OkStatus();
  }

  AuditWrites Finish() {
    std::stable_sort(out_.writes.begin(), out_.writes.end(), [](const AuditWrite& a, const AuditWrite& b) {
      return std::tie(a.time_ns, a.audit_id) < std::tie(b.time_ns, b.audit_id);
    });
    return std::move(out_);
  }

 private:
  absl::Status Skip(const char* reason) {
    ++out_.skipped[reason];
    return absl::OkStatus();
  }

  const std::string& name_;
  const KindFilter& filter_;
  std::set<std::string> ids_;
  AuditWrites out_;
};

}  // namespace

absl::StatusOr<AuditWrites> DecodeAuditWrites(const std::string& name, std::istream& in, const KindFilter& filter) {
  Decoder d(name, filter);
  std::string line;
  uint64_t n = 0;
  while (std::getline(in, line)) {
    if (auto s = d.Line(line, ++n); !s.ok()) return s;
  }
  if (in.bad()) return absl::DataLossError(recon::StrCat(name, ": read error after line ", n));
  return d.Finish();
}

}  // namespace recon::adapters::importers
