#include "engine/explain.h"

#include <map>
#include <set>

#include "base/strings.h"
#include "engine/json_write.h"
#include "engine/time_format.h"
#include "records/codec.h"

namespace recon::engine {
namespace {

std::string Subject(const records::ActionRecord& a) {
  std::string s = a.object.kind;
  s += " ";
  if (!a.object.ns.empty()) s += a.object.ns + "/";
  s += a.object.name;
  return s;
}

// "created 2 ImageStream, 1 Template; importImage x2" for one event.
std::string Summarize(const std::vector<const records::ActionRecord*>& actions) {
  std::map<std::string, std::map<std::string, int>> by_verb;  // verb → kind → count
  for (const auto* a : actions) {
    if (a->verb == "updateStatus") continue;  // reported as condition changes
    by_verb[a->verb][a->verb == "setTimer" ? a->timer : a->verb == "probe" ? a->probe : a->object.kind]++;
  }
  std::string out;
  for (const auto& [verb, kinds] : by_verb) {
    std::string part = verb + " ";
    bool first = true;
    for (const auto& [kind, n] : kinds) {
      recon::StrAppend(&part, first ? "" : ", ", n > 1 ? recon::StrCat(n, " x ") : "", kind);
      first = false;
    }
    recon::StrAppend(&out, out.empty() ? "" : "; ", part);
  }
  return out;
}

}  // namespace

void ConditionTracker::Observe(const Event& cause, const records::ActionRecord& a, Timeline& out) {
  if (a.verb != "updateStatus") return;
  auto body = ParseJson(a.body);
  if (!body.ok()) return;
  const Json& conds = Path(*body, {"status", "conditions"});
  if (!conds.is_array()) return;
  std::string subject = Subject(a);
  auto& known = last_[subject];
  for (const auto& c : conds) {
    std::string type = GetString(c, {"type"});
    if (type.empty()) continue;
    std::string status = GetString(c, {"status"}), reason = GetString(c, {"reason"}),
                message = GetString(c, {"message"});
    auto it = known.find(type);
    if (it != known.end() && std::get<0>(it->second) == status && std::get<1>(it->second) == reason &&
        std::get<2>(it->second) == message) {
      continue;
    }
    std::string before = it == known.end() ? "unset" : std::get<0>(it->second);
    // Only the reason or message changed: not a transition ("X True -> True").
    std::string text = before == status ? recon::StrCat(type, " still ", status)
                                        : recon::StrCat(type, " ", before, " -> ", status);
    if (!reason.empty()) recon::StrAppend(&text, " (", reason, ")");
    if (!message.empty()) recon::StrAppend(&text, ": ", message);
    out.Add(cause.seq, cause.time_ns, a.domain, subject, "condition", text);
    known[type] = {status, reason, message};
  }
}

absl::Status Explainer::Step(const Event& event) {
  std::vector<records::ActionRecord> actions;
  if (auto s = engine_.Step(event, &actions); !s.ok()) return s;
  for (const auto& r : engine_.reducers()) {
    if (!filter_.empty() && r->Domain() != filter_) continue;
    std::vector<records::ActionRecord> mine;
    std::vector<const records::ActionRecord*> ptrs;
    for (const auto& a : actions) {
      if (a.domain == r->Domain()) mine.push_back(a);
    }
    for (const auto& a : mine) {
      conditions_.Observe(event, a, timeline_);
      ptrs.push_back(&a);
    }
    std::string summary = Summarize(ptrs);
    if (!summary.empty())
      timeline_.Add(event.seq, event.time_ns, std::string(r->Domain()), "", "action", summary);
    for (const auto& n : engine_.notes(r->Domain()))
      timeline_.Add(event.seq, event.time_ns, std::string(r->Domain()), n.subject, n.kind, n.text);
    for (const auto& h : engine_.held()) {
      if (h.domain != r->Domain()) continue;
      std::string subject =
          h.ns.empty() ? recon::StrCat(h.kind, " ", h.name) : recon::StrCat(h.kind, " ", h.ns, "/", h.name);
      timeline_.Add(event.seq, event.time_ns, h.domain, subject, "note",
                    recon::StrCat("create held (not sent): ", h.reason));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Timeline> ExplainRecords(Engine& engine, std::span<const records::EventRecord> events,
                                        const std::string& domain) {
  Explainer ex(engine, domain);
  for (uint64_t seq = engine.last_seq() + 1; seq <= events.size(); ++seq) {
    if (auto s = ex.Step(Event::FromRecord(seq, events[seq - 1])); !s.ok()) return s;
  }
  return ex.timeline();
}

absl::StatusOr<Timeline> ExplainStore(Engine& engine, store::EventStore& st, const std::string& domain) {
  engine.set_content_resolver([&st](std::string_view digest) { return st.GetContent(digest); });
  Explainer ex(engine, domain);
  auto it = st.ReadEvents(std::max<uint64_t>(engine.last_seq() + 1, st.FirstSeq()), store::kEndOfLog);
  if (!it.ok()) return it.status();
  for (; (*it)->Valid(); (*it)->Next()) {
    auto view = records::EventView::Parse((*it)->payload());
    if (!view.ok()) return view.status();
    Event e = Event::FromCapnp(view->reader());
    e.seq = (*it)->seq();
    if (auto s = ex.Step(e); !s.ok()) return s;
  }
  if (!(*it)->status().ok()) return (*it)->status();
  return ex.timeline();
}

std::string TimelineText(const Timeline& t) {
  std::string out;
  for (const auto& e : t.entries()) {
    recon::StrAppend(&out, "seq ", e.seq, " ", FormatClock(e.time_ns), "  ", e.domain, "  ");
    if (!e.subject.empty()) recon::StrAppend(&out, e.subject, ": ");
    recon::StrAppend(&out, e.text, "\n");
  }
  if (out.empty()) out = "(nothing to explain: no domain acted on this log)\n";
  return out;
}

std::string TimelineJson(const Timeline& t) {
  std::string out;
  for (const auto& e : t.entries()) {
    recon::StrAppend(&out, "{\"seq\":", e.seq, ",\"time\":\"", FormatRfc3339(e.time_ns), "\",\"domain\":");
    AppendJsonString(out, e.domain);
    out += ",\"subject\":";
    AppendJsonString(out, e.subject);
    out += ",\"kind\":";
    AppendJsonString(out, e.kind);
    out += ",\"text\":";
    AppendJsonString(out, e.text);
    out += "}\n";
  }
  return out;
}

std::string TimelineMermaid(const Timeline& t) {
  // One section per subject; each condition/state note starts a bar that
  // lasts until the next note of the same subject.
  std::map<std::string, std::vector<const TimelineEntry*>> by_subject;
  int64_t last = 0;
  for (const auto& e : t.entries()) {
    last = std::max(last, e.time_ns);
    if (e.kind == "condition" || e.kind == "state" || e.kind == "wait") {
      by_subject[e.domain + " " + (e.subject.empty() ? "(domain)" : e.subject)].push_back(&e);
    }
  }
  std::string out = "gantt\n  dateFormat YYYY-MM-DDTHH:mm:ss\n  axisFormat %H:%M:%S\n";
  for (const auto& [subject, entries] : by_subject) {
    recon::StrAppend(&out, "  section ", subject, "\n");
    for (size_t i = 0; i < entries.size(); ++i) {
      int64_t end = i + 1 < entries.size() ? entries[i + 1]->time_ns : last;
      if (end <= entries[i]->time_ns) end = entries[i]->time_ns + 1'000'000'000;
      std::string label = entries[i]->text.substr(0, 60);
      for (char& c : label) {
        if (c == ':' || c == '#' || c == ';') c = ' ';
      }
      recon::StrAppend(&out, "  seq ", entries[i]->seq, " ", label, " :",
                       FormatRfc3339Seconds(entries[i]->time_ns).substr(0, 19), ", ",
                       FormatRfc3339Seconds(end).substr(0, 19), "\n");
    }
  }
  return out;
}

}  // namespace recon::engine
