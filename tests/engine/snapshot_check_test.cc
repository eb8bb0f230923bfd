// engine::CheckSnapshotAtEverySeq (what `recon replay --check-snapshots`
// and the scenario runner run): it passes a reducer whose snapshot holds
// all its state, and fails, naming the seq, one that forgets some.
#include "engine/snapshot_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "base/strings.h"
#include "engine/reducer.h"

namespace recon::engine {
namespace {

using ::testing::HasSubstr;

// Counts timer events and sets a timer named after the count. With
// `forget_after` > 0 its snapshot keeps the count only up to that value:
// restored after more events, it counts from there again.
class Counter : public Reducer {
 public:
  explicit Counter(int forget_after) : forget_after_(forget_after) {}
  std::string_view Domain() const override { return "count"; }
  void Reduce(const Event& event, const World&, Emit& emit) override {
    if (event.type != records::EventType::kTimer) return;
    ++count_;
    emit.SetTimer(StrCat("count/", count_), event.time_ns + 1);
  }
  absl::Status Snapshot(SnapshotWriter& writer) const override {
    int kept = forget_after_ > 0 && count_ > forget_after_ ? forget_after_ : count_;
    writer.WriteJson(Json{{"count", kept}});
    return absl::OkStatus();
  }
  absl::Status Restore(SnapshotReader& reader) override {
    auto j = reader.ReadJson();
    if (!j.ok()) return j.status();
    count_ = (*j)["count"].get<int>();
    return absl::OkStatus();
  }

 private:
  int forget_after_;
  int count_ = 0;
};

std::vector<records::EventRecord> Timers(int n) {
  std::vector<records::EventRecord> out;
  for (int i = 0; i < n; ++i) {
    records::EventRecord e;
    e.type = records::EventType::kTimer;
    e.time_ns = 1'000'000'000LL * (i + 1);
    e.timer = "count/tick";
    out.push_back(std::move(e));
  }
  return out;
}

EngineFactory Make(int forget_after) {
  return [forget_after]() -> absl::StatusOr<std::unique_ptr<Engine>> {
    std::vector<std::unique_ptr<Reducer>> r;
    r.push_back(std::make_unique<Counter>(forget_after));
    return std::make_unique<Engine>(std::move(r));
  };
}

TEST(SnapshotCheck, PassesWhenTheSnapshotHoldsEverything) {
  auto checked = CheckSnapshotAtEverySeq(Make(0), Timers(6));
  ASSERT_TRUE(checked.ok()) << checked.status();
  EXPECT_EQ(*checked, 5u);  // after seq 1..5; after the last there is nothing to replay
}

TEST(SnapshotCheck, NamesTheFirstSeqWhoseSnapshotForgetsState) {
  auto checked = CheckSnapshotAtEverySeq(Make(3), Timers(6));
  ASSERT_FALSE(checked.ok());
  EXPECT_EQ(checked.status().code(), absl::StatusCode::kFailedPrecondition);
  // The snapshot after seq 4 keeps a count of 3: seq 5 sets count/4 again.
  EXPECT_THAT(checked.status().message(), HasSubstr("the snapshot after seq 4"));
  EXPECT_THAT(checked.status().message(), HasSubstr("count/5"));
  EXPECT_THAT(checked.status().message(), HasSubstr("count/4"));
}

}  // namespace
}  // namespace recon::engine
