// recon explain: why each domain was where it was, as a timeline.
#include <cstdio>

#include "base/strings.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/domains.h"
#include "cli/io.h"
#include "cli/shadow_options.h"
#include "cli/store_open.h"
#include "cli/timeline_html.h"
#include "cli/timeline_render.h"
#include "engine/explain.h"
#include "engine/jsonl_reader.h"
#include "engine/replay.h"
#include "records/codec.h"
#include "shadow/explain.h"
#include "shadow/report.h"

namespace recon::cli {

int RunExplain(int argc, char** argv) {
  constexpr char kUsage[] =
      "usage: recon explain LOG.jsonl | --store DIR [--domains a,b] [--set k=v ...] [-o "
      "text|json|mermaid|html]\n"
      "Replays the log and prints a timeline: every condition change with the seq and time\n"
      "that caused it, what each event made the domain do, and what the domain was waiting\n"
      "on and since when. -o json prints one entry per line; -o mermaid a gantt chart source;\n"
      "-o html one self-contained page: a lane per object and condition, bars for the time\n"
      "each condition held, the actions as marks with their JSON, the notes, a zoomable axis.\n"
      "  --domains a,b   explain only these domains (default: all); --domain D is the same\n"
      "  --shadow        also say, at the event that caused each write, how the shadow comparison\n"
      "                  decided it as a prediction (match, differs with the fields, missed, pending),\n"
      "                  and where the shadowed operator wrote unpredicted (`recon shadow report`)\n";
  const std::string usage = recon::StrCat(kUsage, kShadowFlagsHelp);
  int code = 0;
  auto args = ParseCommand("explain", usage, argc, argv,
                           {"store", "domains", "domain", "set", "output", "shadow-window", "shadow-manager"},
                           {"shadow"}, &code);
  if (!args) return code;
  bool use_store = args->Has("store");
  if (use_store == (args->positionals().size() == 1) || args->positionals().size() > 1)
    return UsageMismatch(usage);
  std::string output = args->GetOr("output", "text");
  if (output != "text" && output != "json" && output != "mermaid" && output != "html") {
    return UsageError("explain", recon::StrCat(args->Spelled("output"), " ", output,
                                               ": expected text, json, mermaid or html"));
  }
  // --domains as in every other command; --domain (one name) kept as an alias.
  if (args->Has("domains") && args->Has("domain"))
    return UsageError("explain", "--domains and --domain say the same; give one");
  std::string domains = args->GetOr("domains", args->GetOr("domain", ""));
  auto sets = SplitSets(args->GetAll("set"));
  if (!sets.ok()) return UsageError("explain", sets.status().message());
  if (auto s = ValidateOptions(*sets); !s.ok()) return UsageError("explain", s.message());
  auto engine = MakeEngine(domains, args->GetAll("set"));
  if (!engine.ok()) return UsageError("explain", engine.status().message());
  bool shadow = args->Has("shadow");
  if ((args->Has("shadow-window") || args->Has("shadow-manager")) && !shadow)
    return UsageError("explain", "--shadow-window and --shadow-manager need --shadow");
  absl::StatusOr<shadow::Options> shadow_options = shadow::Options{};
  if (shadow) shadow_options = ParseShadowOptions(*args, **engine);
  if (!shadow_options.ok()) return UsageError("explain", shadow_options.status().message());
  absl::StatusOr<engine::Timeline> timeline;
  std::unique_ptr<store::EventStore> st;
  std::vector<records::EventRecord> records;
  if (use_store) {
    auto opened = OpenStoreAt(*args->Get("store"), StoreAccess::kRead, "sync", StoreFlagsFrom(*args));
    if (!opened.ok()) return Fail("explain", opened.status().message());
    st = std::move(*opened);
    timeline = engine::ExplainStore(**engine, *st, /*domain=*/"");  // the engine runs only --domains
  } else {
    auto read = ReadLog(args->positionals()[0]);
    if (!read.ok()) return Fail("explain", read.status().message());
    records = std::move(*read);
    timeline = engine::ExplainRecords(**engine, records, /*domain=*/"");
  }
  if (!timeline.ok()) return Fail("explain", timeline.status().message());
  if (shadow) {
    // The comparison replays the log through an engine of its own.
    auto again = MakeEngine(domains, args->GetAll("set"));
    if (!again.ok()) return Fail("explain", again.status().message());
    auto report = use_store ? shadow::CompareStore(**again, *st, std::move(*shadow_options))
                            : shadow::CompareRecords(**again, records, std::move(*shadow_options));
    if (!report.ok()) return Fail("explain", report.status().message());
    timeline = shadow::WithFindings(*timeline, *report);
  }
  std::string out;
  if (output == "html") {
    // The page shows each action's JSON, which the timeline only
    // summarizes: a second replay collects them, and each cause's time.
    HtmlInput in;
    in.title = use_store ? *args->Get("store") : args->positionals()[0];
    in.timeline = &*timeline;
    auto again = MakeEngine(domains, args->GetAll("set"));
    if (!again.ok()) return Fail("explain", again.status().message());
    auto sink = [&in](const records::ActionRecord& a) { in.actions.push_back(a); };
    absl::Status s;
    if (use_store) {
      s = engine::ReplayStore(**again, *st, store::kEndOfLog, sink);
      auto it = st->ReadEvents(st->FirstSeq(), store::kEndOfLog);
      if (!it.ok()) return Fail("explain", it.status().message());
      for (; (*it)->Valid(); (*it)->Next()) {
        auto view = records::EventView::Parse((*it)->payload());
        if (!view.ok()) return Fail("explain", view.status().message());
        in.seq_time_ns[(*it)->seq()] = view->reader().getTimeNs();
      }
    } else {
      s = engine::ReplayRecords(**again, records, store::kEndOfLog, sink);
      for (size_t i = 0; i < records.size(); ++i) in.seq_time_ns[i + 1] = records[i].time_ns;
    }
    if (!s.ok()) return Fail("explain", s.message());
    out = TimelineHtml(in);
  } else {
    out = output == "json"      ? engine::TimelineJson(*timeline)
          : output == "mermaid" ? cli::TimelineMermaid(*timeline)
                                : engine::TimelineText(*timeline);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace recon::cli
