#include "runtime/write_failure_log.h"

#include "base/strings.h"

namespace recon::runtime {

std::optional<std::string> WriteFailureLog::Line(const records::ActionRecord& a, int status,
                                                 std::string_view message, int64_t now_ns) {
  std::string key = recon::StrCat(a.object.group, "/", a.object.kind, "|", a.object.ns, "|", a.object.name);
  auto [it, first] = objects_.try_emplace(key);
  PerObject& o = it->second;
  if (!first && now_ns - o.last_ns < interval_ns_) {
    ++o.unsaid;
    return std::nullopt;
  }
  std::string object = a.object.ns.empty() ? a.object.name : recon::StrCat(a.object.ns, "/", a.object.name);
  std::string line =
      recon::StrCat("write failed: ", a.verb, " ", a.object.kind, " ", object, " (domain ", a.domain,
                    "): ", status ? recon::StrCat("HTTP ", status) : "no HTTP status", ": ",
                    message.empty() ? "(no message)" : message);
  if (o.unsaid)
    recon::StrAppend(&line, " [", o.unsaid, " more failures of this object since the last warning]");
  o.last_ns = now_ns;
  o.unsaid = 0;
  return line;
}

}  // namespace recon::runtime
