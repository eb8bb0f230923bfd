// recon log import | export | stat
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "adapters/importers/audit_log.h"
#include "adapters/importers/must_gather.h"
#include "base/strings.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/domains.h"
#include "cli/io.h"
#include "cli/store_open.h"
#include "engine/jsonl_reader.h"
#include "engine/jsonl_writer.h"
#include "engine/time_format.h"
#include "records/codec.h"
#include "runtime/redact.h"
#include "runtime/store_room.h"

namespace recon::cli {
namespace {

constexpr char kLogUsage[] =
    "usage: recon log <import|export|stat|copy> [options]\n"
    "  import FILE|- --store DIR [--append] [--durability sync|nosync]\n"
    "      append a JSONL event log; all-or-nothing: a bad line leaves the store unchanged;\n"
    "      into a store that already holds events only with --append\n"
    "  import --format audit FILE|-... | --format must-gather DIR --store DIR [--all-kinds]\n"
    "      the same from a cluster that never ran recon: kube-apiserver audit logs, or an\n"
    "      oc adm must-gather directory (see log import --help)\n"
    "  export --store DIR [--from N] [--to M]\n"
    "      print events as JSONL (with seq); export -> import -> export is byte-identical\n"
    "  stat --store DIR [--json]\n"
    "      count, first/last seq and time, bytes, counts per type and per kind\n"
    "  copy --from STORE --to STORE [--append]\n"
    "      a log moved between stores (a directory, etcd://...), every seq the same\n";

// The store keeps one line per import, "<sha256 of the file> <first>..<last>",
// so importing the same file twice is named as such.
constexpr char kImportsAux[] = "log-imports";

// The kinds the importers keep: those some domain declares.
absl::StatusOr<adapters::importers::KindFilter> DeclaredKinds(bool all_kinds) {
  auto reducers = MakeReducers("");
  if (!reducers.ok()) return reducers.status();
  std::vector<engine::ResourceUse> uses;
  for (const auto& r : *reducers) {
    auto u = r->Describe().resources;
    uses.insert(uses.end(), u.begin(), u.end());
  }
  adapters::importers::KindFilter filter;
  filter.all_kinds = all_kinds;
  for (auto& u : engine::MergeResourceUses(uses)) filter.types.push_back(std::move(u.type));
  return filter;
}

constexpr char kImportUsage[] =
    "usage: recon log import FILE|- --store DIR [--append] [--durability sync|nosync]\n"
    "       recon log import --format audit FILE|-... --store DIR [--all-kinds] [--append]\n"
    "       recon log import --format must-gather DIR --store DIR [--time T] [--all-kinds] [--append]\n"
    "Parses the whole input first; the first bad line is reported with its line\n"
    "number and field, and nothing is appended. Then appends every event in one\n"
    "atomic batch. Secret values (and fields a domain marks sensitive) are stored\n"
    "as keyed hashes, never as given (engine/REDACTION.md). Shows progress on a terminal.\n"
    "A store that already holds events is refused (a second import of the same file\n"
    "would repeat its events with time going backwards); --append means it.\n"
    "--format jsonl (default): recon's own event log (DESIGN.md \"JSONL interchange\").\n"
    "--format audit: kube-apiserver audit logs (audit.k8s.io/v1 Event lines): each successful\n"
    "  create/update/patch/delete (status subresource too) at stage ResponseComplete with a\n"
    "  responseObject becomes an Added/Modified/Deleted event at its stageTimestamp, ordered by\n"
    "  stageTimestamp then auditID; every other line is counted and skipped, by reason.\n"
    "  Several files (e.g. kube-apiserver's and openshift-apiserver's) merge into one log.\n"
    "--format must-gather: an oc adm must-gather directory: its objects become Added events\n"
    "  at the time of its timestamp file (--time T overrides it).\n"
    "--all-kinds: keep every kind, not only those some domain declares.\n"
    "See adapters/importers/README.md.\n";

// What an import appends: the events, the JSONL lines they came from (their
// numbers name a bad Content event) and the digest that names the input.
struct ImportInput {
  std::vector<engine::ParsedLine> parsed;  // JSONL only
  std::vector<records::EventRecord> events;
  std::string file_digest;
};

// recon's own JSONL: parsed whole before anything is stored.
std::optional<int> ReadJsonlInput(const std::string& path, ImportInput* in) {
  auto data = ReadInput(path);
  if (!data.ok()) return Fail("log import", data.status().message());
  engine::JsonlReader reader;
  Progress progress(recon::StrCat("parsing ", path), data->size());
  auto p = reader.ParseAll(*data, path, [&](size_t bytes, size_t n) { progress.Update(bytes, n); });
  progress.Done();
  if (!p.ok()) return Fail("log import", p.status().message());
  if (p->empty()) return Fail("log import", recon::StrCat(path, ": no events (the file is empty)"));
  in->parsed = std::move(*p);
  in->file_digest = records::ContentDigest({{"", *data}});
  return std::nullopt;
}

// Audit logs or a must-gather directory, decoded into object events; what
// was read and skipped is printed.
std::optional<int> DecodeForeignInput(const Args& args, const std::string& format, const std::string& what,
                                      std::optional<int64_t> time_override, ImportInput* in) {
  auto filter = DeclaredKinds(args.Has("all-kinds"));
  if (!filter.ok()) return Fail("log import", filter.status().message());
  absl::StatusOr<adapters::importers::ImportResult> r;
  if (format == "audit") {
    // Read line by line: real audit logs run to gigabytes.
    std::vector<std::unique_ptr<std::ifstream>> files;
    std::vector<std::pair<std::string, std::istream*>> sources;
    for (const auto& f : args.positionals()) {
      if (f == "-") {
        sources.emplace_back(f, &std::cin);
        continue;
      }
      files.push_back(std::make_unique<std::ifstream>(f, std::ios::binary));
      if (!*files.back()) return Fail("log import", recon::StrCat(f, ": cannot open"));
      sources.emplace_back(f, files.back().get());
    }
    r = adapters::importers::DecodeAuditStreams(sources, *filter);
  } else {
    r = adapters::importers::DecodeMustGather(args.positionals()[0], *filter, time_override);
  }
  if (!r.ok()) return Fail("log import", r.status().message());
  adapters::importers::ImportResult decoded = std::move(*r);
  const char* unit = format == "audit" ? "audit lines" : "objects";
  std::printf("%s: %llu %s read, %zu events", what.c_str(), static_cast<unsigned long long>(decoded.read),
              unit, decoded.events.size());
  if (!decoded.skipped.empty()) std::fputs("; skipped:", stdout);
  std::fputs("\n", stdout);
  for (const auto& line : adapters::importers::DescribeSkipped(decoded)) std::printf("  %s\n", line.c_str());
  if (decoded.events.empty())
    return Fail("log import", recon::StrCat(what, ": no object events to import (", decoded.read, " ", unit,
                                            " read, none kept)"));
  // Named by what it imports: the same log imported twice is the same events.
  std::string all;
  for (const auto& e : decoded.events) all += engine::EventToJsonl(0, e, nullptr);
  in->file_digest = recon::StrCat(format, ":", records::ContentDigest({{"", all}}));
  in->events = std::move(decoded.events);
  return std::nullopt;
}

// A store that holds events takes more only with --append; the same input
// imported before is named as such.
std::optional<int> RefuseUnasked(store::EventStore& st, const std::string& dir, bool append,
                                 const std::string& imports, const ImportInput& in, const std::string& what) {
  if (st.LastSeq() == 0 || append) return std::nullopt;
  for (absl::string_view line : absl::StrSplit(imports, '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, in.file_digest + " ")) {
      return Fail("log import", recon::StrCat(what, " was already imported into ", dir, " (seq ",
                                              line.substr(in.file_digest.size() + 1),
                                              "); --append imports it again after seq ", st.LastSeq()));
    }
  }
  return Fail("log import",
              recon::StrCat(dir, " already holds ", st.LastSeq(), " events (seq ", st.FirstSeq(), "..",
                            st.LastSeq(), "); --append adds these after them"));
}

// A Content event naming only a digest must name content stored before or
// given earlier in this file; say which line it is (the store cannot).
std::optional<int> CheckContentDigests(store::EventStore& st, const std::string& path,
                                       const std::vector<engine::ParsedLine>& parsed) {
  std::set<std::string> digests_in_file;
  for (const auto& p : parsed) {
    const records::EventRecord& e = p.event;
    if (e.type != records::EventType::kContent) continue;
    if (!e.content_files.empty() || e.content_digest == records::ContentDigest({}) ||
        digests_in_file.contains(e.content_digest)) {
      digests_in_file.insert(e.content_digest);
      continue;
    }
    if (auto got = st.GetContent(e.content_digest); !got.ok()) {
      if (got.status().code() != absl::StatusCode::kNotFound) {
        return Fail("log import", recon::StrCat(path, ": line ", p.line, ": ", Sv(got.status().message())));
      }
      return Fail("log import",
                  recon::StrCat(path, ": line ", p.line, ": \"digest\": ", e.content_digest,
                                " is neither in the store nor given with files earlier in the file"));
    }
    digests_in_file.insert(e.content_digest);
  }
  return std::nullopt;
}

// Redacted with the store's key (engine/REDACTION.md), appended in one
// batch, and the import's name recorded.
int AppendImport(store::EventStore& st, const std::string& dir, const std::string& imports, ImportInput& in,
                 const std::string& what) {
  auto redactor = RedactorFor(dir, st);
  if (!redactor.ok()) return Fail("log import", redactor.status().message());
  auto reducers = MakeReducers("");
  if (!reducers.ok()) return Fail("log import", reducers.status().message());
  redactor->AddDomainRulesOf(*reducers);
  if (auto s = redactor->RedactAll(in.events); !s.ok()) return Fail("log import", s.message());
  auto first = st.Append(in.events);
  if (!first.ok()) return Fail("log import", first.status().message());
  const uint64_t last = *first + in.events.size() - 1;
  std::string record = recon::StrCat(imports, in.file_digest, " ", *first, "..", last, "\n");
  // The events are in: a failure here only loses the "already imported" name.
  if (auto s = st.PutAux(kImportsAux, record); !s.ok())
    std::fprintf(stderr, "recon log import: warning: the import was not recorded: %.*s\n",
                 static_cast<int>(s.message().size()), s.message().data());
  std::printf("imported %zu events from %s into %s (seq %llu..%llu)\n", in.events.size(), what.c_str(),
              dir.c_str(), static_cast<unsigned long long>(*first), static_cast<unsigned long long>(last));
  return 0;
}

int Import(int argc, char** argv) {
  int code = 0;
  auto args = ParseCommand("log import", kImportUsage, argc, argv, {"store", "durability", "format", "time"},
                           {"append", "all-kinds"}, &code);
  if (!args) return code;
  const std::string format = args->GetOr("format", "jsonl");
  if (format != "jsonl" && format != "audit" && format != "must-gather")
    return UsageError("log import",
                      recon::StrCat("--format ", format, ": expected jsonl, audit or must-gather"));
  const size_t npos = args->positionals().size();
  if (npos == 0 || (format != "audit" && npos != 1) || !args->Has("store")) {
    std::fputs(
        "usage: recon log import [--format jsonl|audit|must-gather] FILE|-|DIR --store DIR [--append]\n",
        stderr);
    return 2;
  }
  if (format == "jsonl" && args->Has("all-kinds"))
    return UsageError("log import", "--all-kinds: only with --format audit or must-gather");
  if (format != "must-gather" && args->Has("time"))
    return UsageError("log import", "--time: only with --format must-gather");
  if (auto d = args->Get("durability"); d && *d != "sync" && *d != "nosync")
    return UsageError("log import", recon::StrCat("--durability ", *d, ": expected sync or nosync"));
  std::optional<int64_t> time_override;
  if (auto t = args->Get("time")) {
    auto ns = engine::ParseRfc3339(*t);
    if (!ns.ok())
      return UsageError("log import", recon::StrCat("--time ", *t, ": ", Sv(ns.status().message())));
    time_override = *ns;
  }
  const std::string& path = args->positionals()[0];
  const std::string what = npos == 1 ? path : recon::StrCat(path, " and ", npos - 1, " more");
  ImportInput in;
  if (auto failed = format == "jsonl" ? ReadJsonlInput(path, &in)
                                      : DecodeForeignInput(*args, format, what, time_override, &in))
    return *failed;
  const std::string dir = *args->Get("store");
  auto store = OpenStoreAt(dir, StoreAccess::kCreate, args->GetOr("durability", "sync"), StoreFlagsFrom(*args));
  if (!store.ok()) return Fail("log import", store.status().message());
  auto imports = (*store)->GetAux(kImportsAux);
  if (!imports.ok()) return Fail("log import", imports.status().message());
  const std::string done = imports->value_or("");
  if (auto failed = RefuseUnasked(**store, dir, args->Has("append"), done, in, what)) return *failed;
  if (auto failed = CheckContentDigests(**store, path, in.parsed)) return *failed;
  if (format == "jsonl") {
    in.events.reserve(in.parsed.size());
    for (auto& p : in.parsed) in.events.push_back(std::move(p.event));
  }
  return AppendImport(**store, dir, done, in, what);
}

int Export(int argc, char** argv) {
  constexpr char kUsage[] =
      "usage: recon log export --store DIR [--from N] [--to M]\n"
      "Prints events N..M (default: all) as JSONL, one per line, with their seq.\n";
  int code = 0;
  auto args = ParseCommand("log export", kUsage, argc, argv, {"store", "from", "to"}, {}, &code);
  if (!args) return code;
  if (!args->Has("store")) return UsageMismatch(kUsage);
  auto from = args->GetUint("from", 1);
  auto to = args->GetUint("to", store::kEndOfLog);
  if (!from.ok()) return UsageError("log export", from.status().message());
  if (!to.ok()) return UsageError("log export", to.status().message());
  if (*from > *to)
    return UsageError("log export", recon::StrCat(args->Spelled("from"), " ", *from, " is after ",
                                                  args->Spelled("to"), " ", *to, ": nothing to export"));
  auto st = OpenStoreAt(*args->Get("store"), StoreAccess::kRead, "sync", StoreFlagsFrom(*args));
  if (!st.ok()) return Fail("log export", st.status().message());
  auto it = (*st)->ReadEvents(std::max<uint64_t>(*from, (*st)->FirstSeq()), *to);
  if (!it.ok()) return Fail("log export", it.status().message());
  for (; (*it)->Valid(); (*it)->Next()) {
    auto ev = records::DecodeEvent((*it)->payload());
    if (!ev.ok()) return Fail("log export", recon::StrCat("seq ", (*it)->seq(), ": ", ev.status().message()));
    records::ContentFiles files;
    if (ev->type == records::EventType::kContent) {
      auto f = (*st)->GetContent(ev->content_digest);
      if (!f.ok()) return Fail("log export", recon::StrCat("seq ", (*it)->seq(), ": ", f.status().message()));
      files = std::move(*f);
    }
    std::string line = engine::EventToJsonl((*it)->seq(), *ev, &files);
    std::fwrite(line.data(), 1, line.size(), stdout);
  }
  if (!(*it)->status().ok()) return Fail("log export", (*it)->status().message());
  return std::fflush(stdout) == 0 ? 0 : 1;
}

int Stat(int argc, char** argv) {
  constexpr char kUsage[] =
      "usage: recon log stat --store DIR|etcd://HOST:PORT/PREFIX [--json]\n"
      "Reads every event (verifying each record) and prints counts.\n";
  int code = 0;
  auto args = ParseCommand("log stat", kUsage, argc, argv, {"store"}, {"json"}, &code);
  if (!args) return code;
  if (!args->Has("store")) return UsageMismatch(kUsage);
  const std::string where = *args->Get("store");
  auto opened = OpenStoreAt(where, StoreAccess::kRead, "sync", StoreFlagsFrom(*args));
  if (!opened.ok()) return Fail("log stat", opened.status().message());
  store::EventStore& st = **opened;
  uint64_t count = 0, payload_bytes = 0, body_bytes = 0;
  int64_t first_time = 0, last_time = 0;
  std::map<std::string, uint64_t> per_type, per_kind;
  auto it = st.ReadEvents(st.FirstSeq(), store::kEndOfLog);
  if (!it.ok()) return Fail("log stat", it.status().message());
  for (; (*it)->Valid(); (*it)->Next()) {
    auto view = records::EventView::Parse((*it)->payload());
    if (!view.ok())
      return Fail("log stat", recon::StrCat("seq ", (*it)->seq(), ": ", view.status().message()));
    auto r = view->reader();
    if (count == 0) first_time = r.getTimeNs();
    last_time = r.getTimeNs();
    ++count;
    payload_bytes += (*it)->payload().size();
    per_type[std::string(records::EventTypeName(static_cast<records::EventType>(r.getType())))]++;
    if (r.hasObject() && r.getObject().getKind().size() > 0) {
      auto o = r.getObject();
      std::string kind = o.getGroup().size()
                             ? recon::StrCat(records::View(o.getKind()), ".", records::View(o.getGroup()))
                             : std::string(records::View(o.getKind()));
      per_kind[kind]++;
      body_bytes += r.getBody().size();
    }
  }
  if (!(*it)->status().ok()) return Fail("log stat", (*it)->status().message());
  uint64_t first = count ? st.FirstSeq() : 0, last = st.LastSeq();
  auto size = st.Size();
  if (!size.ok()) return Fail("log stat", size.status().message());
  const bool etcd = IsEtcdStore(where);
  if (args->Has("json")) {
    std::string out = recon::StrCat("{\"events\":", count, ",\"first_seq\":", first, ",\"last_seq\":", last);
    if (count) {
      recon::StrAppend(&out, ",\"first_time\":\"", engine::FormatRfc3339(first_time), "\",\"last_time\":\"",
                       engine::FormatRfc3339(last_time), "\"");
    }
    recon::StrAppend(&out, ",\"record_bytes\":", payload_bytes, ",\"object_bytes\":", body_bytes,
                     ",\"disk_bytes\":", size->bytes);
    if (size->quota) recon::StrAppend(&out, ",\"quota_bytes\":", size->quota);
    out += ",\"types\":{";
    bool sep = false;
    for (const auto& [k, v] : per_type) recon::StrAppend(&out, sep ? "," : "", "\"", k, "\":", v), sep = true;
    out += "},\"kinds\":{";
    sep = false;
    for (const auto& [k, v] : per_kind) recon::StrAppend(&out, sep ? "," : "", "\"", k, "\":", v), sep = true;
    out += "}}\n";
    std::fputs(out.c_str(), stdout);
    return 0;
  }
  std::printf("store       %s\n", args->Get("store")->c_str());
  std::printf("events      %llu (seq %llu..%llu)\n", static_cast<unsigned long long>(count),
              static_cast<unsigned long long>(first), static_cast<unsigned long long>(last));
  if (count) {
    std::printf("time        %s .. %s\n", engine::FormatRfc3339(first_time).c_str(),
                engine::FormatRfc3339(last_time).c_str());
  }
  std::printf("bytes       %llu in records, %llu of object JSON, %llu %s\n",
              static_cast<unsigned long long>(payload_bytes), static_cast<unsigned long long>(body_bytes),
              static_cast<unsigned long long>(size->bytes),
              etcd ? "in etcd's database (every prefix)" : "on disk");
  if (size->quota) {
    std::printf("quota       %llu bytes: %.1f %% used\n", static_cast<unsigned long long>(size->quota),
                100.0 * static_cast<double>(size->bytes) / static_cast<double>(size->quota));
    if (std::string warning = runtime::StoreRoomWarning(*size); !warning.empty())
      std::fprintf(stderr, "warning: %s\n", warning.c_str());
  }
  std::printf("by type\n");
  for (const auto& [k, v] : per_type)
    std::printf("  %-14s %llu\n", k.c_str(), static_cast<unsigned long long>(v));
  std::printf("by kind\n");
  for (const auto& [k, v] : per_kind)
    std::printf("  %-40s %llu\n", k.c_str(), static_cast<unsigned long long>(v));
  return 0;
}

}  // namespace

int RunLog(int argc, char** argv) {
  if (argc < 1 || std::string_view(argv[0]) == "--help" || std::string_view(argv[0]) == "-h") {
    std::fputs(kLogUsage, argc < 1 ? stderr : stdout);
    return argc < 1 ? 2 : 0;
  }
  std::string_view sub = argv[0];
  if (sub == "import") return Import(argc - 1, argv + 1);
  if (sub == "export") return Export(argc - 1, argv + 1);
  if (sub == "stat") return Stat(argc - 1, argv + 1);
  if (sub == "copy") return RunLogCopy(argc - 1, argv + 1);
  std::fprintf(stderr, "recon log: unknown sub-command \"%s\"\n%s", argv[0], kLogUsage);
  return 2;
}

}  // namespace recon::cli
