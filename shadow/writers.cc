#include "shadow/writers.h"

#include <map>
#include <set>
#include <tuple>

namespace recon::shadow {
namespace {

using engine::Json;

const Json& ManagedFields(const Json& object) { return engine::Path(object, {"metadata", "managedFields"}); }

// Which entry of managedFields an entry is: one per manager, operation and
// subresource (apiVersion can move with a write).
using Identity = std::tuple<std::string, std::string, std::string>;
Identity IdentityOf(const Json& e) {
  return {engine::GetString(e, {"manager"}), engine::GetString(e, {"operation"}),
          engine::GetString(e, {"subresource"})};
}

// Every field `now` lists was listed `before` (fieldsV1 sets: objects of
// "f:…"/"k:…" keys, "." for the field itself).
bool FieldsWithin(const Json& now, const Json& before) {
  if (!now.is_object()) return now == before;
  if (!before.is_object()) return now.empty();
  for (auto it = now.begin(); it != now.end(); ++it) {
    auto b = before.find(it.key());
    if (b == before.end() || !FieldsWithin(it.value(), *b)) return false;
  }
  return true;
}

// An entry changed by its own manager's write, not by another manager
// taking some of its fields: the server then removes those from it and
// leaves its time alone.
bool Wrote(const Json& now, const Json* before) {
  if (before == nullptr) return true;
  if (now == *before) return false;
  for (const char* k : {"time", "apiVersion", "fieldsType"})
    if (engine::Path(now, {k}) != engine::Path(*before, {k})) return true;
  return !FieldsWithin(engine::Path(now, {"fieldsV1"}), engine::Path(*before, {"fieldsV1"}));
}

}  // namespace

std::vector<std::string> Writers(const Json* previous, const Json& current) {
  const Json& now = ManagedFields(current);
  if (!now.is_array()) return {};
  std::map<Identity, const Json*> before;
  if (previous != nullptr) {
    const Json& old = ManagedFields(*previous);
    if (old.is_array())
      for (const auto& e : old) before[IdentityOf(e)] = &e;
  }
  std::set<std::string> out;
  for (const auto& e : now) {
    auto b = before.find(IdentityOf(e));
    if (Wrote(e, b == before.end() ? nullptr : b->second)) out.insert(engine::GetString(e, {"manager"}));
  }
  out.erase("");
  return {out.begin(), out.end()};
}

}  // namespace recon::shadow
