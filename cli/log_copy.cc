// `recon log copy --from STORE --to STORE [--append]`: a log moved between
// stores (a RocksDB directory, etcd://…): its events with their content,
// its actions and its snapshot, every seq the same, so `log export` of the
// copy is byte for byte the original's. Into a store that holds events only
// with --append, and only when that store holds the source's own history
// so far (the copy continues it).
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "base/strings.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/io.h"
#include "cli/store_open.h"
#include "records/codec.h"

namespace recon::cli {
namespace {

constexpr char kUsage[] =
    "usage: recon log copy --from STORE --to STORE [--append]\n"
    "Copies a log between stores (a RocksDB directory or etcd://HOST:PORT[,...]/PREFIX): its events\n"
    "with their content, its actions and its latest snapshot, every seq the same. Into a store that\n"
    "holds events only with --append, when it holds the source's first events as they are: the copy\n"
    "then continues it. etcd TLS and user: --etcd-* apply to both stores.\n";

constexpr size_t kBatch = 256;

// The payload of one event, or "" when it is not there.
std::string EventBytes(store::EventStore& st, uint64_t seq) {
  auto it = st.ReadEvents(seq, seq);
  if (!it.ok() || !(*it)->Valid()) return "";
  return std::string((*it)->payload());
}

}  // namespace

int RunLogCopy(int argc, char** argv) {
  int code = 0;
  std::set<std::string> values = {"from", "to"};
  values.insert(EtcdStoreFlags().begin(), EtcdStoreFlags().end());
  auto args = ParseCommand("log copy", kUsage, argc, argv, values, {"append"}, &code);
  if (!args) return code;
  if (!args->Has("from") || !args->Has("to")) return UsageMismatch(kUsage);
  const std::string from_where = *args->Get("from"), to_where = *args->Get("to");
  if (from_where == to_where) return UsageError("log copy", "--from and --to name the same store");
  const StoreFlags flags = StoreFlagsFrom(*args);
  auto from = OpenStoreAt(from_where, StoreAccess::kRead, "sync", flags);
  if (!from.ok()) return Fail("log copy", StrCat("--from ", from_where, ": ", from.status().message()));
  if ((*from)->FirstSeq() > 1) {
    return Fail("log copy", StrCat("--from ", from_where, ": compacted before seq ", (*from)->FirstSeq(),
                                   "; a copy needs the whole log"));
  }
  auto to = OpenStoreAt(to_where, StoreAccess::kCreate, "sync", flags);
  if (!to.ok()) return Fail("log copy", StrCat("--to ", to_where, ": ", to.status().message()));
  store::EventStore& src = **from;
  store::EventStore& dst = **to;
  const uint64_t have = dst.LastSeq(), last = src.LastSeq();
  if (have > 0) {
    if (!args->Has("append")) {
      return Fail("log copy", StrCat("--to ", to_where, " holds seq 1..", have,
                                     ": give --append to continue it with the source's events after it"));
    }
    if (have > last || EventBytes(dst, have) != EventBytes(src, have)) {
      return Fail("log copy", StrCat("--to ", to_where, ": its seq ", have,
                                     " is not the source's: --append continues only the same log"));
    }
  }
  uint64_t events = 0, contents = 0;
  auto it = src.ReadEvents(have + 1, last);
  if (!it.ok()) return Fail("log copy", it.status().message());
  std::vector<records::EventRecord> batch;
  uint64_t next = have + 1;
  auto flush = [&]() -> bool {
    if (batch.empty()) return true;
    auto first = dst.Append(batch);
    if (!first.ok() || *first != next) {
      Fail("log copy", first.ok()
                           ? StrCat("--to ", to_where, ": appended at seq ", *first, ", expected ", next)
                           : StrCat("--to ", to_where, ": ", first.status().message()));
      return false;
    }
    next += batch.size();
    events += batch.size();
    batch.clear();
    return true;
  };
  for (; (*it)->Valid(); (*it)->Next()) {
    auto ev = records::DecodeEvent((*it)->payload());
    if (!ev.ok()) return Fail("log copy", StrCat("seq ", (*it)->seq(), ": ", ev.status().message()));
    if (ev->type == records::EventType::kContent) {
      auto files = src.GetContent(ev->content_digest);
      if (!files.ok()) return Fail("log copy", StrCat("seq ", (*it)->seq(), ": ", files.status().message()));
      ev->content_files = std::move(*files);
      ++contents;
    }
    batch.push_back(std::move(*ev));
    if (batch.size() == kBatch && !flush()) return 1;
  }
  if (!(*it)->status().ok()) return Fail("log copy", (*it)->status().message());
  if (!flush()) return 1;
  // The actions of the copied causes (recomputations of earlier causes
  // replace theirs, as in the source).
  uint64_t actions = 0;
  auto acts = src.ReadActions(0, store::kEndOfLog);
  if (!acts.ok()) return Fail("log copy", acts.status().message());
  std::vector<records::ActionRecord> action_batch;
  for (; (*acts)->Valid(); (*acts)->Next()) {
    auto a = records::DecodeAction((*acts)->payload());
    if (!a.ok())
      return Fail("log copy", StrCat("action of cause ", (*acts)->seq(), ": ", a.status().message()));
    action_batch.push_back(std::move(*a));
    ++actions;
    if (action_batch.size() == kBatch) {
      if (auto s = dst.AppendActions(action_batch); !s.ok()) return Fail("log copy", s.message());
      action_batch.clear();
    }
  }
  if (!(*acts)->status().ok()) return Fail("log copy", (*acts)->status().message());
  if (auto s = dst.AppendActions(action_batch); !s.ok()) return Fail("log copy", s.message());
  auto snap = src.GetSnapshot();
  if (!snap.ok()) return Fail("log copy", snap.status().message());
  if (snap->has_value()) {
    if (auto s = dst.PutSnapshot((*snap)->seq, (*snap)->data); !s.ok()) return Fail("log copy", s.message());
  }
  std::printf("copied %llu events (seq %llu..%llu, %llu with content), %llu actions%s from %s to %s\n",
              static_cast<unsigned long long>(events), static_cast<unsigned long long>(have + 1),
              static_cast<unsigned long long>(last), static_cast<unsigned long long>(contents),
              static_cast<unsigned long long>(actions),
              snap->has_value() ? StrCat(", the snapshot at seq ", (*snap)->seq).c_str() : "",
              from_where.c_str(), to_where.c_str());
  return 0;
}

}  // namespace recon::cli
