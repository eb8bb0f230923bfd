// The olm reducer's per-namespace index, resolution memo and quiet-sync
// skip must not change a single action. The scenarios never feed writes
// back, so the watch echoes of our own status writes (half of a live run's
// events, and what the skip is for) come from the bench's cluster loop: its
// log is replayed with the caches on and off, and from snapshots.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/olm_figures.h"
#include "domains/olm/reducer.h"
#include "engine/engine.h"
#include "engine/jsonl_reader.h"
#include "engine/jsonl_writer.h"

namespace recon::olm {
namespace {

const std::string kDerived = std::string(RECON_SOURCE_DIR) + "/datasets/olm/community-derived";

struct ReplayRun {
  std::vector<std::string> actions;
  uint64_t syncs = 0, skipped = 0, resolutions = 0, computed = 0;
};

// Replays `lines`; with `snapshot_at` > 0 the engine is snapshotted before
// that line and replaced by a fresh one restored from the snapshot.
ReplayRun Replay(const std::vector<engine::ParsedLine>& lines, bool cache, size_t snapshot_at = 0) {
  OlmReducer* olm = nullptr;
  auto make = [&] {
    std::vector<std::unique_ptr<engine::Reducer>> r;
    r.push_back(MakeReducer());
    olm = static_cast<OlmReducer*>(r.back().get());
    olm->set_sync_cache(cache);
    return std::make_unique<engine::Engine>(std::move(r));
  };
  auto engine = make();
  ReplayRun run;
  std::vector<records::ActionRecord> actions;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i == snapshot_at && i > 0) {
      auto snap = engine->Snapshot();
      EXPECT_TRUE(snap.ok());
      engine = make();
      EXPECT_TRUE(engine->Restore(*snap).ok());
    }
    actions.clear();
    EXPECT_TRUE(engine->Step(engine::Event::FromRecord(i + 1, lines[i].event), &actions).ok());
    for (const auto& a : actions) run.actions.push_back(engine::ActionToJsonl(a));
  }
  run.syncs = olm->syncs();
  run.skipped = olm->syncs_skipped();
  run.resolutions = olm->resolutions();
  run.computed = olm->resolutions_computed();
  return run;
}

// The bench's run with `mode` (olm.subscriptionWrites, recorded in its log)
// replayed with the caches on and off, and from snapshots at `points` spread
// over the run.
void CheckFeedbackRun(const std::string& mode, uint64_t subscriptions, size_t points) {
  SCOPED_TRACE(mode);
  const std::string log =
      (std::filesystem::temp_directory_path() / "recon_olm_sync_cache_test.jsonl").string();
  auto figures = bench::MeasureOlm(kDerived, subscriptions, log, nullptr, mode);
  ASSERT_TRUE(figures.ok()) << figures.status();
  std::ifstream in(log);
  std::stringstream data;
  data << in.rdbuf();
  std::filesystem::remove(log);
  engine::JsonlReader reader;
  auto lines = reader.ParseAll(data.str(), log);
  ASSERT_TRUE(lines.ok()) << lines.status();
  ASSERT_EQ(lines->size(), figures->events);

  ReplayRun cached = Replay(*lines, true);
  EXPECT_EQ(cached.actions.size(), figures->actions);
  if (mode == "combined") {
    // The run exercises the skip of quiet syncs: the echoes of our own
    // status writes. (With split writes a namespace waits for those echoes
    // instead and its next step is written at them: nothing to skip.) The
    // resolve memo hits rarely since a subscription's state move is written
    // alone and the resolution waits for its echo; when it does, it must
    // change nothing (below). Since the bench's cluster answers a stale
    // update 409, the syncs that decide a refused write again (not quiet)
    // bring the share down to about 15 %, and since the bench's engine is
    // OLM's olm operator too (session 31) the CSVs' own steps to about 9 %.
    EXPECT_GT(cached.skipped, cached.syncs / 20);
  }
  EXPECT_LE(cached.computed, cached.resolutions);

  ReplayRun full = Replay(*lines, false);
  EXPECT_EQ(full.skipped, 0u);
  EXPECT_EQ(full.computed, full.resolutions);
  ASSERT_EQ(cached.actions.size(), full.actions.size());
  for (size_t i = 0; i < full.actions.size(); ++i)
    ASSERT_EQ(cached.actions[i], full.actions[i]) << "action " << i;

  // Each point replays the whole run again (~10 s per 8 subscriptions with
  // both of OLM's operators), so a few points only, spread over the run; the first one sits in
  // the first upgrades, where echoes of older writes arrive.
  for (bool cache : {false, true}) {
    const size_t step = std::max<size_t>(lines->size() / (cache ? 2 * points : points), 1);
    for (size_t at = 158; at < lines->size(); at += step) {
      ReplayRun restored = Replay(*lines, cache, at);
      for (size_t i = 0; i < std::min(restored.actions.size(), cached.actions.size()); ++i)
        ASSERT_EQ(restored.actions[i], cached.actions[i])
            << "snapshot before line " << at << ", action " << i << (cache ? "" : " (caches off)");
      ASSERT_EQ(restored.actions.size(), cached.actions.size()) << "snapshot before line " << at;
    }
  }
}

TEST(OlmSyncCache, FeedbackRunIsTheSameWithoutCachesAndFromSnapshots) {
  if (!std::filesystem::exists(kDerived)) FAIL() << "real catalog data not found at " << kDerived;
  // Each replay of a run with both of OLM's operators costs ~10 s per 8
  // subscriptions: few subscriptions and points keep the test near a minute.
  CheckFeedbackRun("split", 8, 1);
  CheckFeedbackRun("combined", 4, 1);
}

}  // namespace
}  // namespace recon::olm
