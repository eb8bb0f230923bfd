#include "domains/olm/install/json_values.h"

namespace recon::olm {

bool SameValue(const engine::Json& a, const engine::Json& b) {
  if (a.is_object() && b.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto ia = a.begin(); ia != a.end(); ++ia) {
      auto ib = b.find(ia.key());
      if (ib == b.end() || !SameValue(*ia, *ib)) return false;
    }
    return true;
  }
  if (a.is_array() && b.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!SameValue(a[i], b[i])) return false;
    return true;
  }
  return a == b;
}

const engine::Json& ArrayOrEmpty(const engine::Json& j) {
  static const engine::Json* const kEmpty = new engine::Json(engine::Json::array());
  return j.is_array() ? j : *kEmpty;
}

}  // namespace recon::olm
