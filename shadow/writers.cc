#include "shadow/writers.h"

#include <set>

namespace recon::shadow {
namespace {

using engine::Json;

const Json& ManagedFields(const Json& object) { return engine::Path(object, {"metadata", "managedFields"}); }

// An entry as one comparable string: everything the server records of it.
std::string Entry(const Json& e) { return engine::Dump(e); }

}  // namespace

std::vector<std::string> Writers(const Json* previous, const Json& current) {
  const Json& now = ManagedFields(current);
  if (!now.is_array()) return {};
  std::set<std::string> before;
  if (previous != nullptr) {
    const Json& old = ManagedFields(*previous);
    if (old.is_array())
      for (const auto& e : old) before.insert(Entry(e));
  }
  std::set<std::string> out;
  for (const auto& e : now) {
    if (!before.contains(Entry(e))) out.insert(engine::GetString(e, {"manager"}));
  }
  out.erase("");
  return {out.begin(), out.end()};
}

}  // namespace recon::shadow
