#include "cli/timeline_html.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/strings.h"
#include "cli/timeline_render.h"
#include "engine/jsonl_writer.h"
#include "engine/time_format.h"

namespace recon::cli {
namespace {

// Layout of the first paint (time axis, whole range); the page's script
// lays the same elements out again from their data-* attributes on zoom.
constexpr int kLeft = 330, kWidth = 1000, kRow = 22, kTop = 30, kBarHeight = 14;

std::string Fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f", v);
  return buf;
}

std::string StatusColor(std::string_view status) {
  if (status == "True") return "#4c9a5f";
  if (status == "False") return "#9aa5b1";
  return "#d9822b";  // Unknown, or anything else
}

struct Row {
  std::string section, label;
  bool header = false;
};

// The page's behaviour: zoom (wheel, buttons, drag to pan) on a time or seq
// axis, redrawing every bar and mark from its data-* attributes; details of
// the clicked element below the chart. Plain DOM, no library.
constexpr char kScript[] = R"JS(
(function () {
  const svg = document.getElementById('chart');
  const L = +svg.dataset.left, W = +svg.dataset.width;
  const epochMs = +svg.dataset.epochMs, totalMs = +svg.dataset.totalMs;
  const firstSeq = +svg.dataset.firstSeq, lastSeq = +svg.dataset.lastSeq;
  const bars = Array.from(svg.querySelectorAll('.bar'));
  const marks = Array.from(svg.querySelectorAll('.mark'));
  const axisSel = document.getElementById('axis');
  const full = () => axisSel.value === 'seq' ? [firstSeq, lastSeq + 1] : [0, totalMs];
  let view = full();
  const x = v => L + (v - view[0]) / (view[1] - view[0]) * W;
  function span(el) {
    if (axisSel.value === 'seq') {
      const end = +el.dataset.endSeq || lastSeq + 1;
      return [+el.dataset.startSeq, Math.max(end, +el.dataset.startSeq + 1)];
    }
    return [+el.dataset.t0, Math.max(+el.dataset.t1, +el.dataset.t0 + 1000)];
  }
  function pad(n) { return String(n).padStart(2, '0'); }
  function clock(ms) {
    const d = new Date(epochMs + ms);
    return pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes()) + ':' + pad(d.getUTCSeconds());
  }
  function ticks() {
    const g = document.getElementById('axis');
    while (g.firstChild) g.removeChild(g.firstChild);
    const range = view[1] - view[0];
    const steps = axisSel.value === 'seq'
      ? [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000, 10000, 100000]
      : [1e3, 2e3, 5e3, 1e4, 3e4, 6e4, 12e4, 3e5, 6e5, 9e5, 18e5, 36e5, 72e5, 216e5, 432e5, 864e5];
    const step = steps.find(s => range / s <= 10) || steps[steps.length - 1];
    // Time ticks on round clock times (10:02:00, not 10:02:01).
    const base = axisSel.value === 'seq' ? 0 : epochMs;
    for (let v = Math.ceil((base + view[0]) / step) * step - base; v <= view[1]; v += step) {
      const t = document.createElementNS('http://www.w3.org/2000/svg', 'text');
      t.setAttribute('class', 'tick');
      t.setAttribute('x', x(v));
      t.setAttribute('y', 18);
      t.textContent = axisSel.value === 'seq' ? 'seq ' + v : clock(v);
      g.appendChild(t);
      const line = document.createElementNS('http://www.w3.org/2000/svg', 'line');
      line.setAttribute('class', 'grid');
      line.setAttribute('x1', x(v)); line.setAttribute('x2', x(v));
      line.setAttribute('y1', 22); line.setAttribute('y2', svg.getAttribute('height'));
      g.appendChild(line);
    }
  }
  function draw() {
    for (const b of bars) {
      const [a, e] = span(b);
      b.setAttribute('x', x(a));
      b.setAttribute('width', Math.max(1, x(e) - x(a)));
    }
    for (const m of marks) {
      const v = axisSel.value === 'seq' ? +m.dataset.seq + 0.5 : +m.dataset.t0;
      m.setAttribute('transform', 'translate(' + x(v) + ',' + m.dataset.y + ')');
    }
    for (const e of svg.querySelectorAll('.logend')) {
      const v = axisSel.value === 'seq' ? +e.dataset.seq : +e.dataset.t0;
      e.setAttribute('transform', 'translate(' + x(v) + ',0)');
    }
    ticks();
  }
  function zoom(factor, at) {
    const c = view[0] + (at - L) / W * (view[1] - view[0]);
    const [f0, f1] = full();
    let a = c - (c - view[0]) * factor, b = c + (view[1] - c) * factor;
    const min = axisSel.value === 'seq' ? 2 : 1000;
    if (b - a < min) return;
    view = [Math.max(f0, a), Math.min(f1, b)];
    draw();
  }
  svg.addEventListener('wheel', ev => {
    ev.preventDefault();
    const r = svg.getBoundingClientRect();
    zoom(ev.deltaY < 0 ? 1 / 1.25 : 1.25, ev.clientX - r.left);
  }, {passive: false});
  let drag = null;
  svg.addEventListener('mousedown', ev => { drag = {x: ev.clientX, view: view.slice()}; });
  window.addEventListener('mouseup', () => { drag = null; });
  window.addEventListener('mousemove', ev => {
    if (!drag) return;
    const d = (ev.clientX - drag.x) / W * (drag.view[1] - drag.view[0]);
    const [f0, f1] = full();
    const w = drag.view[1] - drag.view[0];
    const a = Math.min(Math.max(f0, drag.view[0] - d), f1 - w);
    view = [a, a + w];
    draw();
  });
  document.getElementById('zoom-in').onclick = () => zoom(1 / 1.5, L + W / 2);
  document.getElementById('zoom-out').onclick = () => zoom(1.5, L + W / 2);
  document.getElementById('zoom-reset').onclick = () => { view = full(); draw(); };
  axisSel.onchange = () => { view = full(); draw(); };
  const detail = document.getElementById('detail');
  svg.addEventListener('click', ev => {
    const el = ev.target.closest('.bar, .mark');
    if (!el) return;
    let text = el.querySelector('title').textContent;
    if (el.dataset.json) {
      try { text += '\n' + JSON.stringify(JSON.parse(el.dataset.json), null, 2); } catch (e) { text += '\n' + el.dataset.json; }
    }
    detail.textContent = text;
  });
  draw();
  svg.dataset.ready = '1';
})();
)JS";

}  // namespace

std::string HtmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace {

// The range the drawing covers (the timeline's entries and every action's
// cause) and its time axis.
struct Frame {
  bool any = false;
  int64_t start = 0, end = 0;
  uint64_t first_seq = 0, last_seq = 0;
  int64_t origin = 0, axis_end = 0;
  double total_ms = 0;

  double RelMs(int64_t ns) const { return (ns - origin) / 1e6; }
  double X(int64_t ns) const { return kLeft + RelMs(ns) / total_ms * kWidth; }
};

Frame FrameOf(const HtmlInput& in) {
  Frame f;
  auto cover = [&](uint64_t seq, int64_t ns) {
    f.start = f.any ? std::min(f.start, ns) : ns;
    f.end = f.any ? std::max(f.end, ns) : ns;
    f.first_seq = f.any ? std::min(f.first_seq, seq) : seq;
    f.last_seq = f.any ? std::max(f.last_seq, seq) : seq;
    f.any = true;
  };
  for (const auto& e : in.timeline->entries()) cover(e.seq, e.time_ns);
  for (const auto& a : in.actions) {
    auto t = in.seq_time_ns.find(a.cause_seq);
    if (t != in.seq_time_ns.end()) cover(a.cause_seq, t->second);
  }
  // The axis runs a little past the last event, so the state the log ends
  // in shows as bars (held "to the end") rather than as slivers at the edge.
  // It also starts a little before the first, so a mark there is whole.
  const int64_t pad = std::max<int64_t>((f.end - f.start) / 12, 1'000'000'000);
  f.origin = f.start - pad / 4;
  f.axis_end = f.end + pad;
  f.total_ms = (f.axis_end - f.origin) / 1e6;
  return f;
}

// Rows: per section (first appearance order) its condition lanes, then a
// notes row if it has notes; the domains' actions last, a row per domain.
struct Layout {
  std::vector<Row> rows;
  std::map<std::pair<std::string, std::string>, int> row_of;

  int Y(const std::string& section, const std::string& label) const {
    return kTop + row_of.at({section, label}) * kRow;
  }
  int Height() const { return kTop + static_cast<int>(rows.size()) * kRow + 10; }

  void Add(const std::string& section, const std::string& label) {
    auto key = std::make_pair(section, label);
    if (row_of.contains(key)) return;
    bool new_section =
        std::none_of(rows.begin(), rows.end(), [&](const Row& r) { return r.section == section; });
    if (new_section) rows.push_back({section, section, true});
    // Keep a section's rows together even when a lane appears later.
    auto pos = rows.end();
    for (auto it = rows.begin(); it != rows.end(); ++it)
      if (it->section == section) pos = it + 1;
    rows.insert(pos, {section, label, false});
    row_of.clear();
    for (size_t i = 0; i < rows.size(); ++i)
      if (!rows[i].header) row_of[{rows[i].section, rows[i].label}] = static_cast<int>(i);
  }
};

Layout LayoutOf(const TimelineLanes& lanes, const HtmlInput& in) {
  Layout l;
  for (const auto& b : lanes.bars) l.Add(b.section, b.lane);
  for (const auto& m : lanes.marks)
    if (m.kind != "action") l.Add(m.section, "notes");
  std::vector<std::string> domains;
  for (const auto& a : in.actions)
    if (std::find(domains.begin(), domains.end(), a.domain) == domains.end()) domains.push_back(a.domain);
  for (const auto& d : domains) l.Add(recon::StrCat(d, " actions"), "actions");
  return l;
}

// The page up to the chart: title, style, summary, controls.
void AppendHead(const HtmlInput& in, const Frame& f, const TimelineLanes& lanes, std::string* out) {
  recon::StrAppend(
      out, "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>recon explain: ",
      HtmlEscape(in.title), "</title>\n<style>\n",
      "body{font:13px system-ui,sans-serif;margin:16px;color:#222}\n"
      "h1{font-size:18px;margin:0 0 4px} h2{font-size:15px;margin:18px 0 6px}\n"
      "#controls{margin:8px 0} #controls button,#controls select{margin-right:4px}\n"
      "svg{border:1px solid #ccc;background:#fff;cursor:grab;user-select:none}\n"
      ".section{font-weight:600;fill:#333} .lane{fill:#444} "
      ".tick{font-size:11px;fill:#666;text-anchor:middle}\n"
      ".grid{stroke:#eee} .rowline{stroke:#f3f3f3} .bar{stroke:#fff;stroke-width:.5;cursor:pointer}\n"
      ".bar:hover,.mark:hover{opacity:.75} .mark{cursor:pointer}\n"
      ".mark.action path{fill:#2b6cb0} .mark.state path{fill:#6b46c1} .mark.wait path{fill:#d69e2e}\n"
      ".mark.note path{fill:#718096}\n"
      ".logend line{stroke:#c53030;stroke-dasharray:4 3} .logend text{font-size:11px;fill:#c53030;"
      "text-anchor:end}\n"
      "#detail{background:#f7f7f7;border:1px solid #ddd;padding:8px;white-space:pre-wrap;min-height:2em}\n"
      "table{border-collapse:collapse} td,th{border-bottom:1px solid #eee;padding:2px 8px;text-align:left;"
      "vertical-align:top}\n",
      "</style>\n</head>\n<body>\n<h1>recon explain: ", HtmlEscape(in.title), "</h1>\n<p>seq ", f.first_seq,
      "..", f.last_seq, ", ", HtmlEscape(engine::FormatRfc3339(f.start)), " .. ",
      HtmlEscape(engine::FormatRfc3339(f.end)), "; ", lanes.bars.size(), " condition spans, ",
      in.actions.size(), " actions, ",
      std::count_if(lanes.marks.begin(), lanes.marks.end(), [](const auto& m) { return m.kind != "action"; }),
      " notes. Bars: how long a condition held a status (green True, grey False, orange Unknown). "
      "Wheel or buttons zoom, drag pans, click shows details.</p>\n",
      f.any ? "" : "<p id=\"empty\">Nothing to explain: no domain acted on this log.</p>\n",
      "<div id=\"controls\"><button id=\"zoom-in\">zoom in</button><button id=\"zoom-out\">zoom out</button>"
      "<button id=\"zoom-reset\">reset</button> axis <select id=\"axis\"><option value=\"time\">time</option>"
      "<option value=\"seq\">seq</option></select></div>\n");
}

// The chart's frame and the first paint's time axis (the script redraws it
// on zoom): ticks on round clock times, about ten across, as the script
// draws them.
void AppendAxis(const Frame& f, int height, std::string* out) {
  recon::StrAppend(out, "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"",
                   kLeft + kWidth + 20, "\" height=\"", height, "\" data-left=\"", kLeft, "\" data-width=\"",
                   kWidth, "\" data-epoch-ms=\"", f.origin / 1'000'000, "\" data-total-ms=\"",
                   Fixed(f.total_ms), "\" data-first-seq=\"", f.first_seq, "\" data-last-seq=\"", f.last_seq,
                   "\">\n");
  recon::StrAppend(out, "<defs><clipPath id=\"plot\"><rect x=\"", kLeft, "\" y=\"0\" width=\"", kWidth,
                   "\" height=\"", height, "\"/></clipPath></defs>\n<g id=\"axis\">");
  static constexpr double kSteps[] = {1e3, 2e3, 5e3,  1e4,  3e4,  6e4,   12e4,  3e5,
                                      6e5, 9e5, 18e5, 36e5, 72e5, 216e5, 432e5, 864e5};
  double step = kSteps[std::size(kSteps) - 1];
  for (double st : kSteps) {
    if (f.total_ms / st <= 10) {
      step = st;
      break;
    }
  }
  const int64_t step_ms = static_cast<int64_t>(step), origin_ms = f.origin / 1'000'000;
  for (int64_t v = (origin_ms + step_ms - 1) / step_ms * step_ms - origin_ms; v <= f.total_ms; v += step_ms) {
    double tx = kLeft + v / f.total_ms * kWidth;
    recon::StrAppend(out, "<text class=\"tick\" x=\"", Fixed(tx), "\" y=\"18\">",
                     engine::FormatClock((origin_ms + v) * 1'000'000), "</text><line class=\"grid\" x1=\"",
                     Fixed(tx), "\" x2=\"", Fixed(tx), "\" y1=\"22\" y2=\"", height, "\"/>");
  }
  *out += "</g>\n";
}

void AppendRowLabels(const Layout& l, std::string* out) {
  for (size_t i = 0; i < l.rows.size(); ++i) {
    int y = kTop + static_cast<int>(i) * kRow;
    if (l.rows[i].header) {
      recon::StrAppend(out, "<text class=\"section\" x=\"6\" y=\"", y + 15, "\">",
                       HtmlEscape(CutLabel(l.rows[i].section, 52)), "</text>\n");
    } else {
      recon::StrAppend(out, "<line class=\"rowline\" x1=\"0\" x2=\"", kLeft + kWidth, "\" y1=\"", y + kRow,
                       "\" y2=\"", y + kRow, "\"/><text class=\"lane\" x=\"20\" y=\"", y + 15, "\">",
                       HtmlEscape(CutLabel(l.rows[i].label, 46)), "</text>\n");
    }
  }
}

// How long each condition held a status, one bar per span.
void AppendBars(const TimelineLanes& lanes, const Frame& f, const Layout& l, std::string* out) {
  for (const auto& b : lanes.bars) {
    int y = l.Y(b.section, b.lane) + (kRow - kBarHeight) / 2;
    const int64_t drawn_end = b.end_seq ? b.end_ns : f.axis_end;
    double x0 = f.X(b.start_ns), x1 = std::max(f.X(drawn_end), x0 + 1);
    std::string tip = recon::StrCat(
        b.section, ": ", b.lane, " ", b.status, b.reason.empty() ? "" : " (", b.reason,
        b.reason.empty() ? "" : ")", " from seq ", b.start_seq, " (", engine::FormatRfc3339(b.start_ns), ") ",
        b.end_seq ? recon::StrCat("until seq ", b.end_seq, " (", engine::FormatRfc3339(b.end_ns), ")")
                  : std::string("to the end"));
    recon::StrAppend(out, "<rect class=\"bar\" data-section=\"", HtmlEscape(b.section), "\" data-lane=\"",
                     HtmlEscape(b.lane), "\" data-status=\"", HtmlEscape(b.status), "\" data-start-seq=\"",
                     b.start_seq, "\" data-end-seq=\"", b.end_seq, "\" data-start-ns=\"", b.start_ns,
                     "\" data-end-ns=\"", b.end_ns, "\" data-t0=\"", Fixed(f.RelMs(b.start_ns)),
                     "\" data-t1=\"", Fixed(f.RelMs(drawn_end)), "\" x=\"", Fixed(x0), "\" y=\"", y,
                     "\" width=\"", Fixed(x1 - x0), "\" height=\"", kBarHeight, "\" fill=\"",
                     StatusColor(b.status), "\"><title>", HtmlEscape(tip), "</title></rect>\n");
  }
}

// The notes' marks, then one per action at its cause's time.
void AppendMarks(const HtmlInput& in, const TimelineLanes& lanes, const Frame& f, const Layout& l,
                 std::string* out) {
  auto mark = [&](const std::string& kind, const std::string& section, const std::string& row, uint64_t seq,
                  int64_t time_ns, const std::string& tip, const std::string& json) {
    int y = l.Y(section, row) + kRow / 2;
    recon::StrAppend(out, "<g class=\"mark ", kind, "\" data-seq=\"", seq, "\" data-time-ns=\"", time_ns,
                     "\" data-t0=\"", Fixed(f.RelMs(time_ns)), "\" data-y=\"", y, "\"");
    if (!json.empty()) recon::StrAppend(out, " data-json=\"", HtmlEscape(json), "\"");
    recon::StrAppend(out, " transform=\"translate(", Fixed(f.X(time_ns)), ",", y,
                     ")\"><path d=\"M0,-6L5,0L0,6L-5,0Z\"/><title>", HtmlEscape(tip), "</title></g>\n");
  };
  for (const auto& m : lanes.marks) {
    if (m.kind == "action") continue;  // drawn from the actions themselves, below
    mark(m.kind, m.section, "notes", m.seq, m.time_ns,
         recon::StrCat("seq ", m.seq, " ", engine::FormatRfc3339(m.time_ns), " ", m.kind, ": ", m.text), "");
  }
  for (const auto& a : in.actions) {
    auto t = in.seq_time_ns.find(a.cause_seq);
    if (t == in.seq_time_ns.end()) continue;
    std::string what = a.verb;
    if (!a.object.kind.empty())
      recon::StrAppend(&what, " ", a.object.kind, " ", a.object.ns.empty() ? "" : a.object.ns + "/",
                       a.object.name);
    if (!a.timer.empty()) recon::StrAppend(&what, " ", a.timer);
    if (!a.probe.empty()) recon::StrAppend(&what, " ", a.probe);
    std::string json = engine::ActionToJsonl(a);
    while (!json.empty() && json.back() == '\n') json.pop_back();
    mark("action", recon::StrCat(a.domain, " actions"), "actions", a.cause_seq, t->second,
         recon::StrCat("seq ", a.cause_seq, " ", engine::FormatRfc3339(t->second), " ", a.domain, ": ", what),
         json);
  }
}

void AppendNotesTable(const engine::Timeline& timeline, std::string* out) {
  *out +=
      "<h2>Notes</h2>\n<table id=\"notes\">\n<tr><th>seq</th><th>time</th><th>domain</th><th>subject</th>"
      "<th>kind</th><th>note</th></tr>\n";
  for (const auto& e : timeline.entries()) {
    if (e.kind == "condition" || e.kind == "action") continue;
    recon::StrAppend(out, "<tr><td>", e.seq, "</td><td>", engine::FormatClock(e.time_ns), "</td><td>",
                     HtmlEscape(e.domain), "</td><td>", HtmlEscape(e.subject), "</td><td>",
                     HtmlEscape(e.kind), "</td><td>", HtmlEscape(e.text), "</td></tr>\n");
  }
  *out += "</table>\n";
}

}  // namespace

std::string TimelineHtml(const HtmlInput& in) {
  const TimelineLanes lanes = BuildLanes(*in.timeline);
  const Frame f = FrameOf(in);
  const Layout l = LayoutOf(lanes, in);
  std::string out;
  AppendHead(in, f, lanes, &out);
  AppendAxis(f, l.Height(), &out);
  AppendRowLabels(l, &out);
  out += "<g clip-path=\"url(#plot)\">\n";
  AppendBars(lanes, f, l, &out);
  AppendMarks(in, lanes, f, l, &out);
  // Where the log ends (bars past it are the state it ended in).
  recon::StrAppend(&out, "<g class=\"logend\" data-t0=\"", Fixed(f.RelMs(f.end)), "\" data-seq=\"",
                   f.last_seq + 1, "\" transform=\"translate(", Fixed(f.X(f.end)),
                   ",0)\"><line x1=\"0\" x2=\"0\" y1=\"", kTop, "\" y2=\"", l.Height(),
                   "\"/><text x=\"-4\" y=\"", kTop - 2, "\">end of log</text></g>\n");
  out += "</g>\n</svg>\n<h2>Selected</h2>\n<pre id=\"detail\">(click a bar or a mark)</pre>\n";
  AppendNotesTable(*in.timeline, &out);
  recon::StrAppend(&out, "<script>", kScript, "</script>\n</body>\n</html>\n");
  return out;
}

}  // namespace recon::cli
