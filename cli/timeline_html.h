// `recon explain -o html`: the timeline as one self-contained page (no
// network fetches): an SVG with a lane per object and condition, bars for the
// time each condition held, the actions as marks carrying their JSON, the
// domains' notes, and a little inline JS to zoom the seq/time axis and show
// what was clicked.
#ifndef RECON_CLI_TIMELINE_HTML_H_
#define RECON_CLI_TIMELINE_HTML_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/timeline.h"
#include "records/record.h"

namespace recon::cli {

struct HtmlInput {
  std::string title;  // what was explained, e.g. the log's path
  const engine::Timeline* timeline = nullptr;
  // Every action the domains computed, with the time of its cause event.
  std::vector<records::ActionRecord> actions;
  std::map<uint64_t, int64_t> seq_time_ns;
};

std::string TimelineHtml(const HtmlInput& in);

// Text for HTML element content and attribute values.
std::string HtmlEscape(std::string_view s);

}  // namespace recon::cli

#endif  // RECON_CLI_TIMELINE_HTML_H_
