// Determinism: every aro scenario replayed straight through and replayed
// from a snapshot taken at each seq yields the same action stream.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "domains/aro/reducer.h"
#include "engine/engine.h"
#include "engine/jsonl_reader.h"
#include "engine/jsonl_writer.h"

namespace recon::aro {
namespace {

std::vector<std::string> ReplayAll(const std::vector<engine::ParsedLine>& lines, bool worker,
                                   size_t snapshot_at) {
  auto make = [&] {
    std::vector<std::unique_ptr<engine::Reducer>> r;
    r.push_back(MakeReducer());
    auto e = std::make_unique<engine::Engine>(std::move(r));
    if (worker) EXPECT_TRUE(e->SetOption("aro.role", "worker", true).ok());
    return e;
  };
  auto engine = make();
  std::vector<std::string> out;
  std::vector<store::ActionRecord> actions;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i == snapshot_at) {
      auto snap = engine->Snapshot();
      EXPECT_TRUE(snap.ok());
      engine = make();
      EXPECT_TRUE(engine->Restore(*snap).ok());
    }
    actions.clear();
    engine::Event e = engine::Event::FromRecord(i + 1, lines[i].event);
    EXPECT_TRUE(engine->Step(e, &actions).ok());
    for (const auto& a : actions) out.push_back(engine::ActionToJsonl(a));
  }
  return out;
}

TEST(AroDeterminism, SnapshotAtEverySeqMatchesStraightReplay) {
  std::filesystem::path dir = std::filesystem::path(RECON_SOURCE_DIR) / "tests/scenarios/aro";
  size_t checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".jsonl") continue;
    std::ifstream in(entry.path());
    std::stringstream data;
    data << in.rdbuf();
    std::string args_path = entry.path().string();
    args_path.replace(args_path.size() - 6, 6, ".args");
    std::ifstream args_in(args_path);
    std::stringstream args;
    args << args_in.rdbuf();
    bool worker = args.str().find("aro.role=worker") != std::string::npos;
    if (args.str().find("aro.") != std::string::npos && !worker) continue;  // other options: covered by ctest
    engine::JsonlReader reader;
    auto lines = reader.ParseAll(data.str(), entry.path().string());
    ASSERT_TRUE(lines.ok()) << lines.status();
    auto straight = ReplayAll(*lines, worker, lines->size() + 1);
    for (size_t at = 1; at < lines->size(); ++at) {
      EXPECT_EQ(ReplayAll(*lines, worker, at), straight) << entry.path() << " snapshot at seq " << at;
    }
    ++checked;
  }
  EXPECT_GT(checked, 30u);
}

}  // namespace
}  // namespace recon::aro
