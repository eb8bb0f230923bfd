// recon shadow report: the shadow comparison (shadow/compare.h) of a log,
// recomputed offline: what the domains predicted against what the log shows
// the real operators did.
#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include "base/strings.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/domains.h"
#include "cli/io.h"
#include "cli/shadow_audit.h"
#include "cli/shadow_options.h"
#include "cli/store_open.h"
#include "records/codec.h"
#include "shadow/report.h"
#include "store/event_store.h"

namespace recon::cli {
namespace {

constexpr char kUsage[] =
    "usage: recon shadow report --store DIR | LOG.jsonl [options]\n"
    "Replays the log and matches every write the domains compute (a prediction) against what the\n"
    "log shows within the window: match, differs (the field paths, both values), missed (nothing\n"
    "happened), unpredicted (a write by the shadowed operator's field manager that no prediction\n"
    "covers); superseded (a later prediction of the domain on the object took its place); pending\n"
    "when the log ends inside a window. Exit 1 if anything but match, superseded or pending.\n"
    "  --domains a,b        run only these domains (default: all)\n"
    "  --set k=v            domain option (repeatable); wins over options recorded in the log\n"
    "  -o text|json         output (default text)\n";

// The log's Cluster events: they record the options its agent ran with.
std::vector<records::EventRecord> ClusterEvents(const std::vector<records::EventRecord>& records) {
  std::vector<records::EventRecord> out;
  for (const auto& r : records)
    if (r.type == records::EventType::kCluster) out.push_back(r);
  return out;
}

absl::StatusOr<std::vector<records::EventRecord>> ClusterEvents(store::EventStore& st) {
  std::vector<records::EventRecord> out;
  auto it = st.ReadEvents(st.FirstSeq(), store::kEndOfLog);
  if (!it.ok()) return it.status();
  for (; (*it)->Valid(); (*it)->Next()) {
    auto r = records::DecodeEvent((*it)->payload());
    if (!r.ok()) return absl::DataLossError(recon::StrCat("seq ", (*it)->seq(), ": ", r.status().message()));
    if (r->type == records::EventType::kCluster) out.push_back(std::move(*r));
  }
  if (!(*it)->status().ok()) return (*it)->status();
  return out;
}

}  // namespace

int RunShadow(int argc, char** argv) {
  if (argc >= 1 && (std::string_view(argv[0]) == "--help" || std::string_view(argv[0]) == "-h")) {
    std::printf("%s%s%s", kUsage, kShadowFlagsHelp, kShadowAuditHelp);
    return kExitOk;
  }
  if (argc < 1 || std::string_view(argv[0]) != "report") {
    std::fprintf(stderr, "%s%s%s", kUsage, kShadowFlagsHelp, kShadowAuditHelp);
    return kExitUsage;
  }
  int code = 0;
  auto args =
      ParseCommand("shadow", recon::StrCat(kUsage, kShadowFlagsHelp, kShadowAuditHelp), argc - 1, argv + 1,
                   {"store", "domains", "set", "output", "shadow-window", "shadow-manager", "audit", "audit-user"}, {}, &code);
  if (!args) return code;
  bool use_store = args->Has("store");
  if (use_store == (args->positionals().size() == 1) || args->positionals().size() > 1)
    return UsageError("shadow", "give either --store DIR or one LOG.jsonl");
  std::string output = args->GetOr("output", "text");
  if (output != "text" && output != "json")
    return UsageError("shadow",
                      recon::StrCat(args->Spelled("output"), " ", output, ": expected text or json"));
  auto split = SplitSets(args->GetAll("set"));
  if (!split.ok()) return UsageError("shadow", split.status().message());
  if (auto s = ValidateOptions(*split); !s.ok()) return UsageError("shadow", s.message());
  auto engine = MakeEngine(args->GetOr("domains", ""), args->GetAll("set"));
  if (!engine.ok()) return UsageError("shadow", engine.status().message());
  auto options = ParseShadowOptions(*args, **engine);
  if (!options.ok()) return UsageError("shadow", options.status().message());

  if (args->Has("audit-user") && !args->Has("audit")) return UsageError("shadow", "--audit-user needs --audit");
  auto audit_options = ParseShadowAudit(*args, **engine, *options);
  if (!audit_options.ok()) return UsageError("shadow", audit_options.status().message());

  std::unique_ptr<store::EventStore> st;
  std::vector<records::EventRecord> records;
  if (use_store) {
    auto opened = OpenStoreAt(*args->Get("store"), StoreAccess::kRead, "sync", StoreFlagsFrom(*args));
    if (!opened.ok()) return Fail("shadow", opened.status().message());
    st = std::move(*opened);
  } else {
    auto read = ReadLog(args->positionals()[0]);
    if (!read.ok()) return Fail("shadow", read.status().message());
    records = std::move(*read);
  }
  std::optional<shadow::AuditInput> audit;
  if (args->Has("audit")) {
    auto cluster = st ? ClusterEvents(*st) : ClusterEvents(records);
    if (!cluster.ok()) return Fail("shadow", cluster.status().message());
    auto recorded = EngineWithRecordedOptions(args->GetOr("domains", ""), args->GetAll("set"), *cluster);
    if (!recorded.ok()) return Fail("shadow", recorded.status().message());
    // The kinds the domains declare with the options the log recorded
    // (--set still winning): a log that ran without olm.executePlans is not
    // judged on the CRDs and RBAC OLM's own plans create.
    const engine::Engine* engines[] = {recorded->get()};
    auto loaded = LoadShadowAudit(*args->Get("audit"), engines, std::move(*audit_options));
    if (!loaded.ok()) return Fail("shadow", loaded.status().message());
    audit = std::move(*loaded);
  }
  const shadow::AuditInput* judge = audit ? &*audit : nullptr;
  absl::StatusOr<shadow::Report> report =
      st ? shadow::CompareStore(**engine, *st, std::move(*options), judge)
         : shadow::CompareRecords(**engine, records, std::move(*options), judge);
  if (!report.ok()) return Fail("shadow", report.status().message());
  std::string text = output == "json" ? shadow::RenderJson(*report) : shadow::RenderText(*report);
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (std::fflush(stdout) != 0) return kExitFailure;
  for (const auto& f : report->findings) {
    if (f.result != shadow::Result::kMatch && f.result != shadow::Result::kPending &&
        f.result != shadow::Result::kSuperseded)
      return kExitFailure;
  }
  return kExitOk;
}

}  // namespace recon::cli
