#include "engine/jsonl_writer.h"

#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "engine/json_write.h"
#include "engine/time_format.h"

namespace recon::engine {

std::string EventToJsonl(uint64_t seq, const records::EventRecord& e, const records::ContentFiles* files) {
  std::string out;
  out.reserve(64 + e.body.size());
  recon::StrAppend(&out, "{\"seq\":", seq, ",\"time\":\"", FormatRfc3339(e.time_ns), "\",\"type\":\"",
                   records::EventTypeName(e.type), "\"");
  switch (e.type) {
    case records::EventType::kAdded:
    case records::EventType::kModified:
    case records::EventType::kDeleted:
      recon::StrAppend(&out, ",\"object\":", e.body);
      break;
    case records::EventType::kTimer:
      out += ",\"timer\":";
      AppendJsonString(out, e.timer);
      break;
    case records::EventType::kProbe:
      out += ",\"probe\":";
      AppendJsonString(out, e.probe.name);
      out += ",\"target\":";
      AppendJsonString(out, e.probe.target);
      recon::StrAppend(&out, ",\"ok\":", e.probe.ok ? "true" : "false");
      if (e.probe.status) recon::StrAppend(&out, ",\"status\":", *e.probe.status);
      if (!e.probe.detail.empty()) {
        out += ",\"detail\":";
        AppendJsonString(out, e.probe.detail);
      }
      if (!e.probe.data.empty()) recon::StrAppend(&out, ",\"data\":", e.probe.data);
      break;
    case records::EventType::kActionResult:
      out += ",\"action\":";
      AppendJsonString(out, e.action_result.action);
      recon::StrAppend(&out, ",\"ok\":", e.action_result.ok ? "true" : "false");
      if (e.action_result.status) recon::StrAppend(&out, ",\"status\":", *e.action_result.status);
      if (!e.action_result.error.empty()) {
        out += ",\"error\":";
        AppendJsonString(out, e.action_result.error);
      }
      if (!e.action_result.resource_version.empty()) {
        out += ",\"resourceVersion\":";
        AppendJsonString(out, e.action_result.resource_version);
      }
      if (!e.action_result.uid.empty()) {
        out += ",\"uid\":";
        AppendJsonString(out, e.action_result.uid);
      }
      if (!e.action_result.warnings.empty())
        recon::StrAppend(&out, ",\"warnings\":", e.action_result.warnings);
      break;
    case records::EventType::kCluster:
      recon::StrAppend(&out, ",\"facts\":", e.cluster_facts.empty() ? "{}" : e.cluster_facts);
      break;
    case records::EventType::kContent:
      out += ",\"name\":";
      AppendJsonString(out, e.content_name);
      out += ",\"digest\":";
      AppendJsonString(out, e.content_digest);
      if (files) {
        out += ",\"files\":{";
        bool first = true;
        for (const auto& [path, text] : *files) {
          if (!first) out.push_back(',');
          first = false;
          AppendJsonString(out, path);
          out.push_back(':');
          AppendJsonString(out, text);
        }
        out.push_back('}');
      }
      break;
  }
  out += "}\n";
  return out;
}

std::string ActionToJsonl(const records::ActionRecord& a) {
  std::string out;
  recon::StrAppend(&out, "{\"cause\":", a.cause_seq, ",\"domain\":");
  AppendJsonString(out, a.domain);
  out += ",\"verb\":";
  AppendJsonString(out, a.verb);
  if (a.verb == "setTimer") {
    out += ",\"timer\":";
    AppendJsonString(out, a.timer);
    recon::StrAppend(&out, ",\"at\":\"", FormatRfc3339(a.at_ns), "\"");
  } else if (a.verb == "probe") {
    out += ",\"probe\":";
    AppendJsonString(out, a.probe);
    out += ",\"target\":";
    AppendJsonString(out, a.target);
  } else {
    recon::StrAppend(&out, ",\"object\":", a.body.empty() ? "{}" : a.body);
  }
  out += "}\n";
  return out;
}

}  // namespace recon::engine
