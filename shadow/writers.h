// Who made a change, from the object's metadata.managedFields: the field
// managers whose entry is new or changed (time, fields, operation) since
// the previous version the log holds. An entry that only lost fields,
// its time unchanged, was not written: another manager took them (an
// admin's patch of a field the operator owns). Pure; no I/O.
#ifndef RECON_SHADOW_WRITERS_H_
#define RECON_SHADOW_WRITERS_H_

#include <string>
#include <vector>

#include "engine/json.h"

namespace recon::shadow {

// `previous` is null for the first version the log shows (every manager of
// it then wrote it). No entry changed (a re-delivered object, or two
// writes of the same fields by one manager within a second): nobody, so a
// resync is never taken for a write. Sorted, without duplicates.
std::vector<std::string> Writers(const engine::Json* previous, const engine::Json& current);

}  // namespace recon::shadow

#endif  // RECON_SHADOW_WRITERS_H_
