// Reading JSON values: compared as values, and lists walked without copies.
#ifndef RECON_DOMAINS_OLM_INSTALL_JSON_VALUES_H_
#define RECON_DOMAINS_OLM_INSTALL_JSON_VALUES_H_

#include "engine/json.h"

namespace recon::olm {

// a == b as JSON values: objects equal whatever the order of their members
// (engine::Json keeps insertion order, and its == does not).
bool SameValue(const engine::Json& a, const engine::Json& b);

// `j` when it is an array, else an empty one: `for (x : ArrayOrEmpty(j))`
// without the copy a `j.is_array() ? j : Json::array()` makes (pointers
// into such a copy dangle after the loop).
const engine::Json& ArrayOrEmpty(const engine::Json& j);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_INSTALL_JSON_VALUES_H_
