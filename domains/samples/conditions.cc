#include "domains/samples/conditions.h"

#include "engine/time_format.h"

namespace recon::samples {
namespace {

Json& Conditions(Json& status) {
  if (!status.is_object()) status = Json::object();
  Json& c = status["conditions"];
  if (!c.is_array()) c = Json::array();
  return c;
}

std::string Str(const Json& j, std::string_view key) { return engine::GetString(j, {key}); }

}  // namespace

const Json* FindCondition(const Json& status, std::string_view type) {
  const Json& c = engine::Path(status, {"conditions"});
  if (!c.is_array()) return nullptr;
  for (const Json& x : c) {
    if (Str(x, "type") == type) return &x;
  }
  return nullptr;
}

Json& Condition(Json& status, std::string_view type, int64_t now_ns) {
  Json& c = Conditions(status);
  for (Json& x : c) {
    if (Str(x, "type") == type) return x;
  }
  std::string now = engine::FormatRfc3339Seconds(now_ns);
  Json n = Json::object();
  n["type"] = type;
  n["status"] = "False";
  n["lastUpdateTime"] = now;
  n["lastTransitionTime"] = now;
  c.push_back(std::move(n));
  return c.back();
}

bool ConditionIs(const Json& status, std::string_view type, std::string_view value) {
  const Json* c = FindCondition(status, type);
  return c && Str(*c, "status") == value;
}

std::string ConditionMessage(const Json& status, std::string_view type) {
  const Json* c = FindCondition(status, type);
  return c ? Str(*c, "message") : "";
}

bool GoodConditionUpdate(Json& status, std::string_view type, std::string_view value, int64_t now_ns) {
  // Get-or-create may add the condition (False) in memory; that alone is
  // not a change (upstream persists it only if something else writes).
  Json& c = Condition(status, type, now_ns);
  if (Str(c, "status") == value) return false;
  std::string now = engine::FormatRfc3339Seconds(now_ns);
  c["status"] = value;
  c["lastUpdateTime"] = now;
  c["lastTransitionTime"] = now;
  c.erase("reason");
  c.erase("message");
  return true;
}

bool ErrorConditionUpdate(Json& status, std::string_view type, std::string_view value,
                          std::string_view reason, std::string_view message, int64_t now_ns) {
  Json& c = Condition(status, type, now_ns);
  const bool status_changed = Str(c, "status") != value;
  if (!status_changed && Str(c, "message") == message) return false;
  std::string now = engine::FormatRfc3339Seconds(now_ns);
  c["lastUpdateTime"] = now;
  if (status_changed) c["lastTransitionTime"] = now;
  c["status"] = value;
  c["reason"] = reason;
  c["message"] = message;
  return true;
}

bool SetConditionMessage(Json& status, std::string_view type, std::string_view message, int64_t now_ns) {
  Json& c = Condition(status, type, now_ns);
  if (Str(c, "message") == message) return false;
  c["message"] = message;
  c["lastUpdateTime"] = engine::FormatRfc3339Seconds(now_ns);
  return true;
}

std::string_view ErrorReason(std::string_view type, std::string_view value) {
  if (type == "SamplesExist" && value == "Unknown") return "FileSystemError";
  return "GlobalImageStreamConfigRegistryMismatch";
}

Json NormalizedStatus(const Json& status) {
  Json out = Json::object();
  auto copy_string = [&](std::string_view key) {
    std::string v = engine::GetString(status, {key});
    if (!v.empty()) out[std::string(key)] = v;
  };
  auto copy_list = [&](std::string_view key) {
    const Json& v = engine::Path(status, {key});
    if (v.is_array() && !v.empty()) out[std::string(key)] = v;
  };
  copy_string("managementState");
  const Json& conds = engine::Path(status, {"conditions"});
  if (conds.is_array() && !conds.empty()) {
    Json list = Json::array();
    for (const Json& c : conds) {
      Json n = Json::object();
      for (std::string_view k :
           {"type", "status", "lastUpdateTime", "lastTransitionTime", "reason", "message"}) {
        std::string v = Str(c, k);
        if (!v.empty() || k == "type" || k == "status") n[std::string(k)] = v;
      }
      list.push_back(std::move(n));
    }
    out["conditions"] = std::move(list);
  }
  copy_string("samplesRegistry");
  copy_list("architectures");
  copy_list("skippedImagestreams");
  copy_list("skippedTemplates");
  copy_string("version");
  return out;
}

}  // namespace recon::samples
