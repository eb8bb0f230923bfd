// Pictures of `recon explain`'s timeline: lanes of bars (how long each
// condition held) and marks (actions, domain notes), and their Mermaid
// rendering.
#ifndef RECON_CLI_TIMELINE_RENDER_H_
#define RECON_CLI_TIMELINE_RENDER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/timeline.h"

namespace recon::cli {

// One span a condition held a status: from the change that set it until the
// next change of that same condition's status (a change of only its reason
// or message does not end it), or the end of the timeline.
struct TimelineBar {
  std::string section;                  // "samples Config cluster"
  std::string lane;                     // the condition type, e.g. "SamplesExist"
  std::string status;                   // "True", "False", "Unknown"
  std::string reason;                   // at the start of the span
  uint64_t start_seq = 0, end_seq = 0;  // end_seq 0: held to the end
  int64_t start_ns = 0, end_ns = 0;
};

// A point: an action summary or a domain note.
struct TimelineMark {
  std::string section;
  std::string kind;  // "action", "state", "wait", "note"
  std::string text;
  uint64_t seq = 0;
  int64_t time_ns = 0;
};

struct TimelineLanes {
  std::vector<TimelineBar> bars;    // in order of their start, then section and lane
  std::vector<TimelineMark> marks;  // in timeline order
  int64_t start_ns = 0, end_ns = 0;
  uint64_t last_seq = 0;
};

TimelineLanes BuildLanes(const engine::Timeline& t);

// Mermaid gantt source: a section per subject, a bar per span, actions and
// notes as milestones. An empty timeline gives a comment saying so.
std::string TimelineMermaid(const engine::Timeline& t);

// At most `max_bytes` bytes, cut at a word boundary (else at a UTF-8
// character boundary, never inside one), with "…" when cut.
std::string CutLabel(std::string_view text, size_t max_bytes);

}  // namespace recon::cli

#endif  // RECON_CLI_TIMELINE_RENDER_H_
