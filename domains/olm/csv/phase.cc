#include "domains/olm/csv/phase.h"

namespace recon::olm {
namespace {

// A field Go writes with omitempty.
void SetOrErase(engine::Json& o, const char* key, std::string_view value) {
  if (value.empty()) {
    o.erase(key);
  } else {
    o[key] = std::string(value);
  }
}

}  // namespace

void SetCsvPhase(engine::Json& status, const CsvPhase& to, std::string_view now) {
  if (!status.is_object()) status = engine::Json::object();
  status["lastUpdateTime"] = std::string(now);
  if (engine::GetString(status, {"phase"}) != to.phase) {
    status["phase"] = to.phase;
    status["lastTransitionTime"] = std::string(now);
  }
  SetOrErase(status, "message", to.message);
  SetOrErase(status, "reason", to.reason);
  engine::Json& history = status["conditions"];
  if (!history.is_array()) history = engine::Json::array();
  // A new entry when the phase or the reason moved (a message-only change
  // edits nothing), with the times as they stand now.
  if (!history.empty() && engine::GetString(history.back(), {"phase"}) == to.phase &&
      engine::GetString(history.back(), {"reason"}) == to.reason)
    return;
  engine::Json entry = engine::Json::object();
  entry["phase"] = to.phase;
  SetOrErase(entry, "reason", to.reason);
  SetOrErase(entry, "message", to.message);
  entry["lastUpdateTime"] = std::string(now);
  SetOrErase(entry, "lastTransitionTime", engine::GetString(status, {"lastTransitionTime"}));
  history.push_back(std::move(entry));
  if (history.size() > kCsvConditionsLimit)
    history.erase(history.begin(), history.begin() + static_cast<std::ptrdiff_t>(history.size() - kCsvConditionsLimit));
}

bool SetCsvPhaseIfChanged(engine::Json& status, const CsvPhase& to, std::string_view now) {
  if (status.is_object() && engine::GetString(status, {"phase"}) == to.phase &&
      engine::GetString(status, {"reason"}) == to.reason && engine::GetString(status, {"message"}) == to.message)
    return false;
  SetCsvPhase(status, to, now);
  return true;
}

bool IsCopiedCsv(const engine::Json& csv) {
  return engine::GetString(csv, {"status", "reason"}) == "Copied" ||
         engine::Path(csv, {"metadata", "labels", "olm.copiedFrom"}).is_string();
}

}  // namespace recon::olm
