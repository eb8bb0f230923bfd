// recon explain: why each domain was where it was, as a timeline.
#include <cstdio>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/domains.h"
#include "cli/io.h"
#include "engine/explain.h"
#include "engine/jsonl_reader.h"

namespace recon::cli {

int RunExplain(int argc, char** argv) {
  auto args = Args::Parse(argc, argv, {"store", "domain", "set", "output"}, {});
  if (!args.ok()) return Fail("explain", args.status().message());
  constexpr char kUsage[] =
      "usage: recon explain LOG.jsonl | --store DIR [--domain D] [--set k=v ...] [-o text|json|mermaid]\n"
      "Replays the log and prints a timeline: every condition change with the seq and time\n"
      "that caused it, what each event made the domain do, and what the domain was waiting\n"
      "on and since when. -o json prints one entry per line; -o mermaid a gantt chart source.\n";
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
    return Fail("explain", "-o: expected text, json or mermaid");
  }
  std::string domain = args->GetOr("domain", "");
  auto engine = MakeEngine(domain, args->GetAll("set"));
  if (!engine.ok()) return Fail("explain", engine.status().message());
  absl::StatusOr<engine::Timeline> timeline;
  if (use_store) {
    auto st = OpenStore(*args->Get("store"), false);
    if (!st.ok()) return Fail("explain", st.status().message());
    timeline = engine::ExplainStore(**engine, **st, domain);
  } else {
    const std::string& path = args->positionals()[0];
    auto records = ReadLog(path);
    if (!records.ok()) return Fail("explain", records.status().message());
    timeline = engine::ExplainRecords(**engine, *records, domain);
  }
  if (!timeline.ok()) return Fail("explain", timeline.status().message());
  std::string out = output == "json"      ? engine::TimelineJson(*timeline)
                    : output == "mermaid" ? engine::TimelineMermaid(*timeline)
                                          : engine::TimelineText(*timeline);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace recon::cli
