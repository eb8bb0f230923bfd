// The shadow comparison's findings as `recon explain` lines: at the seq of
// the event that caused each prediction, what was predicted and how it was
// decided (match, differs with the field paths, missed, pending); an
// unpredicted write at its own seq. Pure; no I/O.
#ifndef RECON_SHADOW_EXPLAIN_H_
#define RECON_SHADOW_EXPLAIN_H_

#include "engine/timeline.h"
#include "shadow/report.h"

namespace recon::shadow {

// `timeline` with one "shadow" entry per finding of `report`, each after
// the entries of its seq (the timeline's order is by seq).
engine::Timeline WithFindings(const engine::Timeline& timeline, const Report& report);

}  // namespace recon::shadow

#endif  // RECON_SHADOW_EXPLAIN_H_
