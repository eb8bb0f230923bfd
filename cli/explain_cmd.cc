// recon explain: why each domain was where it was, as a timeline.
#include <cstdio>

#include "base/strings.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/domains.h"
#include "cli/io.h"
#include "cli/timeline_render.h"
#include "engine/explain.h"
#include "engine/jsonl_reader.h"

namespace recon::cli {

int RunExplain(int argc, char** argv) {
  auto args = Args::Parse(argc, argv, {"store", "domains", "domain", "set", "output"}, {});
  if (!args.ok()) return UsageError("explain", args.status().message());
  constexpr char kUsage[] =
      "usage: recon explain LOG.jsonl | --store DIR [--domains a,b] [--set k=v ...] [-o "
      "text|json|mermaid]\n"
      "Replays the log and prints a timeline: every condition change with the seq and time\n"
      "that caused it, what each event made the domain do, and what the domain was waiting\n"
      "on and since when. -o json prints one entry per line; -o mermaid a gantt chart source\n"
      "of the same timeline: a bar per span a condition held, actions and notes as milestones.\n"
      "  --domains a,b   explain only these domains (default: all); --domain D is the same\n";
  if (args->Has("help")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  bool use_store = args->Has("store");
  if (use_store == (args->positionals().size() == 1) || args->positionals().size() > 1) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::string output = args->GetOr("output", "text");
  if (output != "text" && output != "json" && output != "mermaid") {
    return UsageError(
        "explain", recon::StrCat(args->Spelled("output"), " ", output, ": expected text, json or mermaid"));
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
  absl::StatusOr<engine::Timeline> timeline;
  std::unique_ptr<store::EventStore> st;
  std::vector<store::EventRecord> records;
  if (use_store) {
    auto opened = OpenStore(*args->Get("store"), false);
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
  std::string out = output == "json"      ? engine::TimelineJson(*timeline)
                    : output == "mermaid" ? cli::TimelineMermaid(*timeline)
                                          : engine::TimelineText(*timeline);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace recon::cli
