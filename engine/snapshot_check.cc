#include "engine/snapshot_check.h"

#include <string>
#include <utility>
#include <vector>

#include "base/strings.h"
#include "engine/jsonl_writer.h"
#include "engine/replay.h"

namespace recon::engine {
namespace {

struct Replayed {
  std::vector<uint64_t> causes;  // each action's cause seq
  std::vector<std::string> lines;
};

absl::Status ReplayInto(Engine& engine, std::span<const records::EventRecord> events, uint64_t until,
                        Replayed* out) {
  return ReplayRecords(engine, events, until, [out](const records::ActionRecord& a) {
    out->causes.push_back(a.cause_seq);
    out->lines.push_back(ActionToJsonl(a));
  });
}

std::string Line(const std::vector<std::string>& lines, size_t i) {
  if (i >= lines.size()) return "(no more actions)\n";
  return lines[i];
}

}  // namespace

absl::StatusOr<size_t> CheckSnapshotAtEverySeq(const EngineFactory& make,
                                               std::span<const records::EventRecord> events,
                                               bool compare_state) {
  const uint64_t n = events.size();
  auto straight = make();
  if (!straight.ok()) return straight.status();
  Replayed all;
  if (auto s = ReplayInto(**straight, events, n, &all); !s.ok()) return s;
  auto digest = (*straight)->StateDigest();
  if (!digest.ok()) return digest.status();

  // `head` walks the log one event at a time; each of its states is
  // snapshotted and replayed to the end by a new engine.
  auto head = make();
  if (!head.ok()) return head.status();
  Replayed ignored;
  size_t first_after = 0;  // index in `all` of the first action caused after seq k
  size_t checked = 0;
  for (uint64_t k = 1; k < n; ++k) {
    if (auto s = ReplayInto(**head, events, k, &ignored); !s.ok()) return s;
    while (first_after < all.causes.size() && all.causes[first_after] <= k) ++first_after;
    auto snap = (*head)->Snapshot();
    if (!snap.ok()) return snap.status();
    auto restored = make();
    if (!restored.ok()) return restored.status();
    if (auto s = (*restored)->Restore(*snap); !s.ok())
      return absl::FailedPreconditionError(
          StrCat("the snapshot after seq ", k, " does not restore: ", s.message()));
    Replayed tail;
    if (auto s = ReplayInto(**restored, events, n, &tail); !s.ok()) return s;
    const size_t expected = all.lines.size() - first_after;
    for (size_t i = 0; i < std::max(expected, tail.lines.size()); ++i) {
      const std::string want = i < expected ? all.lines[first_after + i] : Line({}, 0);
      const std::string got = Line(tail.lines, i);
      if (want == got) continue;
      return absl::FailedPreconditionError(
          StrCat("restored from the snapshot after seq ", k, ", the replay of seq ", k + 1, "..", n,
                 " differs at its action ", i + 1, ":\n  straight:      ", want, "  from snapshot: ", got));
    }
    if (!compare_state) {
      ++checked;
      continue;
    }
    auto after = (*restored)->StateDigest();
    if (!after.ok()) return after.status();
    if (*after != *digest) {
      return absl::FailedPreconditionError(StrCat(
          "restored from the snapshot after seq ", k, " and replayed to seq ", n,
          ", the state differs from the straight replay's (digest ", *after, ", straight ", *digest, ")"));
    }
    ++checked;
  }
  return checked;
}

}  // namespace recon::engine
