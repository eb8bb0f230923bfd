// recon replay: recompute the actions of a recorded log.
#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_join.h"
#include "base/strings.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/domains.h"
#include "cli/io.h"
#include "cli/store_open.h"
#include "engine/jsonl_reader.h"
#include "engine/jsonl_writer.h"
#include "engine/replay.h"
#include "engine/snapshot_check.h"
#include "engine/time_format.h"
#include "records/codec.h"
#include "runtime/replay_pipeline.h"
#include "schema/snapshot.capnp.h"

namespace recon::cli {
namespace {

constexpr char kUsage[] =
    "usage: recon replay LOG.jsonl | --store DIR [options]\n"
    "Prints the actions the domains compute for the log, as JSONL, in emission order.\n"
    "  --until SEQ         stop after event SEQ\n"
    "  --set k=v           domain option (repeatable), e.g. --set samples.removalImportWait=0s;\n"
    "                      wins over options recorded in the log\n"
    "  --domains a,b       run only these domains (default: all)\n"
    "  --from-snapshot     (--store) start from the store's snapshot, replay the tail\n"
    "  --record            (--store) also write the recomputed actions into the store\n"
    "  --check             (--store) compare with the actions recorded in the store;\n"
    "                      print the first divergence and exit 1 if any\n"
    "  --diff              run twice, as recorded and with the --set overrides, and print\n"
    "                      where the action streams diverge (exit 1 if they do)\n"
    "  --check-snapshots   (LOG.jsonl) after printing, replay again from a snapshot taken\n"
    "                      after every event; exit 1 naming the seq if the actions or the\n"
    "                      final state differ\n"
    "  --snapshot-actions-only  with --check-snapshots: compare the actions, not the state\n"
    "  --jobs N            1 (default) or 2: with 2, one thread decodes the log and parses\n"
    "                      each object ahead while the other reduces (the same actions);\n"
    "                      not with --record\n"
    "  --quiet             no progress line on stderr (shown only on a terminal)\n";

struct Input {
  std::vector<records::EventRecord> records;  // JSONL mode
  std::unique_ptr<store::EventStore> store;  // store mode
};

// Runs one replay and collects its actions.
// `domains`: the --domains value, or for a check from a snapshot the
// domains the snapshot holds state for.
absl::StatusOr<std::vector<records::ActionRecord>> Run(Input& in, const Args& args,
                                                       const std::string& domains,
                                                       const std::vector<std::string>& sets, uint64_t until,
                                                       bool print) {
  auto engine = MakeEngine(domains, sets);
  if (!engine.ok()) return engine.status();
  std::vector<records::ActionRecord> actions;
  std::string buffer;
  // On a terminal, a long replay shows how far it is (rate-limited there).
  Progress progress("replay", 0, args.Has("quiet"));
  auto sink = [&](const records::ActionRecord& a) {
    progress.Update(0, (*engine)->last_seq());
    if (print) {
      buffer += engine::ActionToJsonl(a);
      if (buffer.size() > (1 << 16)) {
        std::fwrite(buffer.data(), 1, buffer.size(), stdout);
        buffer.clear();
      }
    } else {
      actions.push_back(a);
    }
  };
  absl::Status s;
  // --jobs 2: the two-stage replay (runtime/replay_pipeline.h).
  const bool two_stages = args.GetUint("jobs", 1).value_or(1) == 2;
  auto each = [&](const engine::Event&, std::span<const records::ActionRecord> as) {
    for (const auto& a : as) sink(a);
  };
  if (in.store) {
    if (args.Has("from-snapshot")) {
      auto seq = engine::RestoreFromStore(**engine, *in.store, until);
      if (!seq.ok()) return seq.status();
      if (*seq == 0) std::fprintf(stderr, "recon replay: no snapshot in the store; replaying from seq 1\n");
    }
    s = two_stages ? runtime::ReplayStorePipelined(**engine, *in.store, until, each)
                   : engine::ReplayStore(**engine, *in.store, until, sink, args.Has("record"));
  } else {
    s = two_stages ? runtime::ReplayRecordsPipelined(**engine, in.records, until, each)
                   : engine::ReplayRecords(**engine, in.records, until, sink);
  }
  progress.Done();
  std::fwrite(buffer.data(), 1, buffer.size(), stdout);
  if (!s.ok()) return s;
  return actions;
}

// The domains a snapshot holds reducer state for (the store's run's
// domain set), as a --domains value; the engine's own states are skipped.
absl::StatusOr<std::string> SnapshotDomains(std::string_view bytes) {
  auto words = kj::heapArray<capnp::word>((bytes.size() + 7) / 8);
  if (!bytes.empty()) std::memcpy(words.begin(), bytes.data(), bytes.size());
  std::vector<std::string> known = DomainNames(), found;
  kj::Maybe<kj::Exception> e = kj::runCatchingExceptions([&]() {
    capnp::ReaderOptions ro;
    ro.traversalLimitInWords = 8 * words.size() + 1024;
    capnp::FlatArrayMessageReader message(words, ro);
    for (auto st : message.getRoot<schema::Snapshot>().getReducers()) {
      std::string d(records::View(st.getDomain()));
      if (std::find(known.begin(), known.end(), d) != known.end()) found.push_back(d);
    }
  });
  if (e != nullptr) return absl::DataLossError("snapshot: malformed");
  if (found.empty()) return absl::FailedPreconditionError("the snapshot holds no domain's state");
  return absl::StrJoin(found, ",");
}

std::string Describe(Input& in, uint64_t seq) {
  records::EventRecord e;
  if (in.store) {
    auto r = store::ReadEvent(*in.store, seq);
    if (!r.ok()) return "";
    e = std::move(*r);
  } else if (seq >= 1 && seq <= in.records.size()) {
    e = in.records[seq - 1];
  } else {
    return "";
  }
  std::string what = recon::StrCat(engine::FormatRfc3339(e.time_ns), " ", records::EventTypeName(e.type));
  if (!e.object.kind.empty())
    recon::StrAppend(&what, " ", e.object.kind, " ", e.object.ns.empty() ? "" : e.object.ns + "/",
                     e.object.name);
  if (!e.timer.empty()) recon::StrAppend(&what, " ", e.timer);
  if (!e.probe.name.empty()) recon::StrAppend(&what, " ", e.probe.name, " ", e.probe.target);
  return what;
}

void PrintLines(const char* prefix, const std::vector<std::string>& lines) {
  if (lines.empty()) std::printf("%s(no actions)\n", prefix);
  for (const auto& l : lines) std::printf("%s%s", prefix, l.c_str());
}

// --check: the recomputed actions against those recorded in the store.
int CheckRecorded(Input& in, const Args& args, const std::vector<std::string>& sets, uint64_t until) {
  // From a snapshot only the actions after its seq are recomputed, so only
  // those recorded after it are compared; without --domains, the domains
  // the snapshot holds (the recorded run's set), not every domain.
  uint64_t after = 0;
  std::string domains = args.GetOr("domains", "");
  if (args.Has("from-snapshot")) {
    auto snap = in.store->GetSnapshot();
    if (!snap.ok()) return Fail("replay", snap.status().message());
    if (snap->has_value() && (*snap)->seq <= until) {
      after = (*snap)->seq;
      if (!args.Has("domains")) {
        auto found = SnapshotDomains((*snap)->data);
        if (!found.ok()) return Fail("replay", found.status().message());
        domains = *found;
      }
    }
  }
  auto recorded = engine::RecordedActions(*in.store, until);
  if (!recorded.ok()) return Fail("replay", recorded.status().message());
  if (recorded->empty()) {
    // An imported log (or one replayed without --record) has events only:
    // any recomputed action would look like a divergence at its first seq.
    return Fail("replay", recon::StrCat("--check: this store has no recorded actions (an imported log, or "
                                        "events without an agent's actions), so there is nothing to check "
                                        "against; `recon replay --store ",
                                        *args.Get("store"), "` prints the actions the domains compute"));
  }
  std::erase_if(*recorded, [after](const records::ActionRecord& a) { return a.cause_seq <= after; });
  auto recomputed = Run(in, args, domains, sets, until, false);
  if (!recomputed.ok()) return Fail("replay", recomputed.status().message());
  auto diffs = engine::DiffActions(*recorded, *recomputed);
  uint64_t last = std::min(until, in.store->LastSeq());
  if (diffs.empty()) {
    if (after > 0) {
      std::printf(
          "ok: %zu recomputed actions match the %zu recorded (events seq %llu..%llu, from the "
          "snapshot at seq %llu; domains %s)\n",
          recomputed->size(), recorded->size(), static_cast<unsigned long long>(after + 1),
          static_cast<unsigned long long>(last), static_cast<unsigned long long>(after), domains.c_str());
    } else {
      std::printf("ok: %zu recomputed actions match the %zu recorded (events up to seq %llu)\n",
                  recomputed->size(), recorded->size(), static_cast<unsigned long long>(last));
    }
    return 0;
  }
  const auto& d = diffs.front();
  std::printf("first divergence at seq %llu (%s)\n", static_cast<unsigned long long>(d.seq),
              Describe(in, d.seq).c_str());
  PrintLines("  recorded:   ", d.left);
  PrintLines("  recomputed: ", d.right);
  std::printf("%zu event(s) diverge in all\n", diffs.size());
  return 1;
}

// --check-snapshots: replayed again from a snapshot after every event.
int CheckSnapshots(const Input& in, const Args& args, const std::vector<std::string>& sets) {
  std::string domains = args.GetOr("domains", "");
  const bool state = !args.Has("snapshot-actions-only");
  auto checked =
      engine::CheckSnapshotAtEverySeq([&] { return MakeEngine(domains, sets); }, in.records, state);
  if (!checked.ok()) return Fail("replay", recon::StrCat("--check-snapshots: ", checked.status().message()));
  std::fprintf(stderr, "snapshot check: ok (%zu snapshots, one after each event but the last; %s)\n",
               *checked, state ? "actions and state" : "actions only");
  return 0;
}

}  // namespace

int RunReplay(int argc, char** argv) {
  int code = 0;
  auto args = ParseCommand(
      "replay", kUsage, argc, argv, {"store", "until", "set", "domains", "jobs"},
      {"from-snapshot", "check", "diff", "record", "check-snapshots", "snapshot-actions-only", "quiet"},
      &code);
  if (!args) return code;
  bool use_store = args->Has("store");
  if (use_store == (args->positionals().size() == 1) || args->positionals().size() > 1)
    return UsageMismatch(kUsage);
  if ((args->Has("check") || args->Has("from-snapshot") || args->Has("record")) && !use_store) {
    return UsageError("replay", "--check, --from-snapshot and --record need --store DIR");
  }
  if (args->Has("check") && args->Has("diff")) return UsageError("replay", "--check and --diff: give one");
  if (args->Has("snapshot-actions-only") && !args->Has("check-snapshots"))
    return UsageError("replay", "--snapshot-actions-only goes with --check-snapshots");
  if (args->Has("check-snapshots") && (use_store || args->Has("diff") || args->Has("until")))
    return UsageError("replay",
                      "--check-snapshots checks a whole LOG.jsonl, without --store, --diff or --until");
  auto until = args->GetUint("until", store::kEndOfLog);
  if (!until.ok()) return UsageError("replay", until.status().message());
  auto jobs = args->GetUint("jobs", 1);
  if (!jobs.ok() || *jobs < 1 || *jobs > 2) return UsageError("replay", "--jobs: expected 1 or 2");
  if (*jobs == 2 && args->Has("record"))
    return UsageError("replay", "--jobs 2 and --record: the two-stage replay only reads the store");
  auto split = SplitSets(args->GetAll("set"));
  if (!split.ok()) return UsageError("replay", split.status().message());
  if (auto s = ValidateOptions(*split); !s.ok()) return UsageError("replay", s.message());
  if (auto d = MakeReducers(args->GetOr("domains", "")); !d.ok())
    return UsageError("replay", d.status().message());
  if (args->Has("diff") && args->GetAll("set").empty())
    return UsageError("replay", "--diff needs at least one --set override to compare against");
  Input in;
  if (use_store) {
    auto st = OpenStoreAt(*args->Get("store"), StoreAccess::kRead, "sync", StoreFlagsFrom(*args));
    if (!st.ok()) return Fail("replay", st.status().message());
    in.store = std::move(*st);
  } else {
    const std::string& path = args->positionals()[0];
    auto records = ReadLog(path);
    if (!records.ok()) return Fail("replay", records.status().message());
    in.records = std::move(*records);
  }
  std::vector<std::string> sets = args->GetAll("set");

  if (args->Has("check")) return CheckRecorded(in, *args, sets, *until);
  if (args->Has("diff")) {
    const std::string domains = args->GetOr("domains", "");
    auto base = Run(in, *args, domains, {}, *until, false);
    if (!base.ok()) return Fail("replay", base.status().message());
    auto changed = Run(in, *args, domains, sets, *until, false);
    if (!changed.ok()) return Fail("replay", changed.status().message());
    auto diffs = engine::DiffActions(*base, *changed);
    std::string label;
    for (const auto& s : sets) recon::StrAppend(&label, label.empty() ? "" : " ", s);
    if (diffs.empty()) {
      std::printf("no divergence: %zu actions either way (with %s)\n", base->size(), label.c_str());
      return 0;
    }
    std::printf("--- as recorded\n+++ with %s\n", label.c_str());
    for (const auto& d : diffs) {
      std::printf("@ seq %llu (%s)\n", static_cast<unsigned long long>(d.seq), Describe(in, d.seq).c_str());
      PrintLines("- ", d.left);
      PrintLines("+ ", d.right);
    }
    std::printf("%zu event(s) diverge\n", diffs.size());
    return 1;
  }
  auto done = Run(in, *args, args->GetOr("domains", ""), sets, *until, true);
  if (!done.ok()) return Fail("replay", done.status().message());
  if (std::fflush(stdout) != 0) return 1;
  return args->Has("check-snapshots") ? CheckSnapshots(in, *args, sets) : 0;
}

int RunSnapshot(int argc, char** argv) {
  constexpr char kUsage[] =
      "usage: recon snapshot --store DIR [--set k=v ...] [--domains a,b]\n"
      "Brings the engine state up to the store's last event (from the previous snapshot\n"
      "if there is one) and writes it as the store's snapshot.\n";
  int code = 0;
  auto args = ParseCommand("snapshot", kUsage, argc, argv, {"store", "set", "domains"}, {}, &code);
  if (!args) return code;
  if (!args->Has("store")) return UsageMismatch(kUsage);
  // Options first: a bad --set or --domains is a usage error, and the store
  // is not opened (nor its files touched) for a command that cannot run.
  auto engine = MakeEngine(args->GetOr("domains", ""), args->GetAll("set"));
  if (!engine.ok()) return UsageError("snapshot", engine.status().message());
  // A snapshot is a write: on etcd it takes the writer's term (run it, as
  // on RocksDB, while no agent writes the store).
  auto st = OpenStoreAt(*args->Get("store"), StoreAccess::kWrite, "sync", StoreFlagsFrom(*args));
  if (!st.ok()) return Fail("snapshot", st.status().message());
  auto from = engine::RestoreFromStore(**engine, **st, store::kEndOfLog);
  if (!from.ok()) return Fail("snapshot", from.status().message());
  if (auto s = engine::ReplayStore(**engine, **st, store::kEndOfLog, nullptr); !s.ok())
    return Fail("snapshot", s.message());
  auto bytes = (*engine)->Snapshot();
  if (!bytes.ok()) return Fail("snapshot", bytes.status().message());
  if (auto s = (*st)->PutSnapshot((*engine)->last_seq(), *bytes); !s.ok())
    return Fail("snapshot", s.message());
  auto digest = (*engine)->StateDigest();
  std::printf("snapshot at seq %llu: %zu bytes, %zu objects, state %s\n",
              static_cast<unsigned long long>((*engine)->last_seq()), bytes->size(),
              (*engine)->world().ObjectCount(), digest.ok() ? digest->c_str() : "?");
  return 0;
}

}  // namespace recon::cli
