#include "cli/timeline_render.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "base/strings.h"
#include "engine/time_format.h"

namespace recon::cli {
namespace {

// A condition entry's text, as engine::ConditionTracker writes it:
// "Type before -> status[ (reason)][: message]" or, when only the reason or
// message changed, "Type still status[ (reason)][: message]".
struct ConditionText {
  std::string type, status, reason;
  bool changed = false;
};

bool ParseCondition(std::string_view text, ConditionText* out) {
  size_t sp = text.find(' ');
  if (sp == std::string_view::npos || sp == 0) return false;
  out->type = std::string(text.substr(0, sp));
  std::string_view rest = text.substr(sp + 1);
  if (rest.starts_with("still ")) {
    rest.remove_prefix(6);
    out->changed = false;
  } else {
    size_t arrow = rest.find(" -> ");
    if (arrow == std::string_view::npos || rest.substr(0, arrow).find(' ') != std::string_view::npos)
      return false;
    rest.remove_prefix(arrow + 4);
    out->changed = true;
  }
  size_t end = rest.find_first_of(" :");
  out->status = std::string(rest.substr(0, end));
  if (out->status.empty()) return false;
  if (end != std::string_view::npos && rest.substr(end).starts_with(" (")) {
    size_t close = rest.find(')', end);
    if (close != std::string_view::npos) out->reason = std::string(rest.substr(end + 2, close - end - 2));
  }
  return true;
}

std::string Section(const engine::TimelineEntry& e) {
  if (e.subject.empty()) return e.kind == "action" ? recon::StrCat(e.domain, " actions") : e.domain;
  return recon::StrCat(e.domain, " ", e.subject);
}

// Mermaid gantt lines split a task at ':' and end a statement at ';' or a
// newline; '#' starts an entity. Those become entity codes.
std::string MermaidEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case ':':
        out += "#58;";
        break;
      case ';':
        out += "#59;";
        break;
      case '#':
        out += "#35;";
        break;
      case '\n':
      case '\r':
        out += ' ';
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string MermaidTime(int64_t ns) { return engine::FormatRfc3339Seconds(ns).substr(0, 19); }

}  // namespace

std::string CutLabel(std::string_view text, size_t max_bytes) {
  static constexpr std::string_view kEllipsis = "\xe2\x80\xa6";  // …
  if (text.size() <= max_bytes) return std::string(text);
  size_t limit = max_bytes > kEllipsis.size() ? max_bytes - kEllipsis.size() : 0;
  size_t cut = text.rfind(' ', limit);
  if (cut == std::string_view::npos || cut < limit / 2) {
    // One long word: cut at a character boundary (not before a UTF-8
    // continuation byte, 10xxxxxx).
    cut = limit;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  }
  std::string_view kept = text.substr(0, cut);
  while (!kept.empty() && (kept.back() == ' ' || kept.back() == ',' || kept.back() == ';'))
    kept.remove_suffix(1);
  return recon::StrCat(kept, kEllipsis);
}

TimelineLanes BuildLanes(const engine::Timeline& t) {
  TimelineLanes out;
  if (t.entries().empty()) return out;
  out.start_ns = t.entries().front().time_ns;
  for (const auto& e : t.entries()) {
    out.start_ns = std::min(out.start_ns, e.time_ns);
    out.end_ns = std::max(out.end_ns, e.time_ns);
    out.last_seq = std::max(out.last_seq, e.seq);
  }
  // (section, condition type) -> index of its open bar
  std::map<std::pair<std::string, std::string>, size_t> open;
  for (const auto& e : t.entries()) {
    ConditionText c;
    if (e.kind == "condition" && ParseCondition(e.text, &c)) {
      auto key = std::make_pair(Section(e), c.type);
      auto it = open.find(key);
      if (it != open.end()) {
        TimelineBar& bar = out.bars[it->second];
        if (bar.status == c.status) continue;  // only the reason or message changed: the bar goes on
        bar.end_seq = e.seq;
        bar.end_ns = e.time_ns;
      }
      TimelineBar bar{key.first, c.type, c.status, c.reason, e.seq, 0, e.time_ns, out.end_ns};
      open[key] = out.bars.size();
      out.bars.push_back(std::move(bar));
      continue;
    }
    out.marks.push_back({Section(e), e.kind, e.text, e.seq, e.time_ns});
  }
  return out;
}

std::string TimelineMermaid(const engine::Timeline& t) {
  TimelineLanes lanes = BuildLanes(t);
  if (lanes.bars.empty() && lanes.marks.empty()) {
    return "%% recon explain: nothing to explain: no domain acted on this log (no gantt to draw)\n";
  }
  // Sections in order of first appearance; in each, bars and marks by time.
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::tuple<int64_t, int, std::string>>> lines;
  auto section = [&](const std::string& name) -> auto& {
    if (!lines.contains(name)) order.push_back(name);
    return lines[name];
  };
  for (size_t i = 0; i < lanes.bars.size(); ++i) {
    const TimelineBar& b = lanes.bars[i];
    // A span needs a length to be drawn: at least a second.
    int64_t end = std::max(b.end_ns, b.start_ns + 1'000'000'000);
    std::string label = recon::StrCat(b.lane, " ", b.status);
    if (!b.reason.empty()) recon::StrAppend(&label, " (", b.reason, ")");
    recon::StrAppend(&label, " seq ", b.start_seq,
                     b.end_seq ? recon::StrCat("..", b.end_seq) : std::string(".."));
    section(b.section).emplace_back(
        b.start_ns, 0,
        recon::StrCat("  ", MermaidEscape(CutLabel(label, 70)), " :", b.end_seq ? "done, " : "active, ",
                      MermaidTime(b.start_ns), ", ", MermaidTime(end), "\n"));
  }
  for (const TimelineMark& m : lanes.marks) {
    std::string label = recon::StrCat("seq ", m.seq, " ", m.text);
    section(m.section).emplace_back(
        m.time_ns, 1,
        recon::StrCat("  ", MermaidEscape(CutLabel(label, 70)), " :milestone, ", MermaidTime(m.time_ns), ", ",
                      MermaidTime(m.time_ns), "\n"));
  }
  std::string out = "gantt\n  title recon explain\n  dateFormat YYYY-MM-DDTHH:mm:ss\n  axisFormat %H:%M:%S\n";
  for (const auto& name : order) {
    recon::StrAppend(&out, "  section ", MermaidEscape(name), "\n");
    auto& items = lines[name];
    std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) {
      return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
    });
    for (const auto& item : items) out += std::get<2>(item);
  }
  return out;
}

}  // namespace recon::cli
