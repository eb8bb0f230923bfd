#include "domains/olm/conditions.h"

#include "engine/time_format.h"

namespace recon::olm {

using engine::Json;

const Json* FindCondition(const Json& status, std::string_view type) {
  const Json& cs = engine::Path(status, {"conditions"});
  if (!cs.is_array()) return nullptr;
  for (const Json& c : cs)
    if (engine::GetString(c, {"type"}) == type) return &c;
  return nullptr;
}

void SetCondition(Json& status, std::string_view type, std::string_view cstatus, std::string_view reason,
                  std::string_view message, int64_t now_ns) {
  if (!status.contains("conditions") || !status["conditions"].is_array())
    status["conditions"] = Json::array();
  Json c = Json::object();
  c["type"] = type;
  c["status"] = cstatus;
  if (!reason.empty()) c["reason"] = reason;
  if (!message.empty()) c["message"] = message;
  for (Json& old : status["conditions"]) {
    if (engine::GetString(old, {"type"}) != type) continue;
    bool same = engine::GetString(old, {"status"}) == cstatus &&
                engine::GetString(old, {"reason"}) == reason &&
                engine::GetString(old, {"message"}) == message;
    c["lastTransitionTime"] = same && old.contains("lastTransitionTime")
                                  ? old["lastTransitionTime"]
                                  : Json(engine::FormatRfc3339Seconds(now_ns));
    old = std::move(c);
    return;
  }
  c["lastTransitionTime"] = engine::FormatRfc3339Seconds(now_ns);
  status["conditions"].push_back(std::move(c));
}

void RemoveCondition(Json& status, std::string_view type) {
  if (!status.contains("conditions") || !status["conditions"].is_array()) return;
  Json& cs = status["conditions"];
  for (size_t i = 0; i < cs.size(); ++i) {
    if (engine::GetString(cs[i], {"type"}) == type) {
      cs.erase(i);
      break;
    }
  }
  if (cs.empty()) status.erase("conditions");
}

}  // namespace recon::olm
