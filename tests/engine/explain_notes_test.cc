// Explain notes never change what a domain does: every aro, samples and
// disconnected scenario reduced with the notes collected (as `recon
// explain` does) gives the same actions and the same final state as
// without them. Their notes are written from Reduce (Emit::Note), so this
// is the purity the reducer contract asks of them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/domains.h"
#include "engine/engine.h"
#include "engine/event.h"
#include "engine/jsonl_reader.h"
#include "records/codec.h"

namespace recon::engine {
namespace {

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

struct Outcome {
  std::vector<std::string> actions;
  std::string state;
  size_t notes = 0;
};

// The scenario through a fresh engine with its .args (--domains, --set).
Outcome Reduce(const std::filesystem::path& jsonl, bool collect_notes) {
  std::string domains;
  std::vector<std::string> sets;
  std::filesystem::path args = jsonl;
  args.replace_extension(".args");
  std::istringstream lines(std::filesystem::exists(args) ? ReadFile(args) : "");
  for (std::string line; std::getline(lines, line);) {
    std::string value;
    if (line == "--domains" && std::getline(lines, value)) domains = value;
    if (line == "--set" && std::getline(lines, value)) sets.push_back(value);
  }
  Outcome out;
  auto engine = cli::MakeEngine(domains, sets);
  EXPECT_TRUE(engine.ok()) << jsonl << ": " << engine.status();
  if (!engine.ok()) return out;
  (*engine)->set_collect_notes(collect_notes);
  JsonlReader reader;
  auto parsed = reader.ParseAll(ReadFile(jsonl), jsonl.string());
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  if (!parsed.ok()) return out;
  uint64_t seq = 0;
  for (auto& p : *parsed) {
    std::vector<records::ActionRecord> actions;
    auto s = (*engine)->Step(Event::FromRecord(++seq, p.event), &actions);
    EXPECT_TRUE(s.ok()) << jsonl << " seq " << seq << ": " << s;
    if (!s.ok()) return out;
    for (const auto& a : actions) out.actions.push_back(records::EncodeActionPayload(a));
    for (const auto& d : cli::DomainNames()) out.notes += (*engine)->notes(d).size();
  }
  auto state = (*engine)->Snapshot();
  EXPECT_TRUE(state.ok()) << state.status();
  if (state.ok()) out.state = *state;
  return out;
}

TEST(ExplainNotes, NeverChangeActionsOrState) {
  size_t scenarios = 0, notes = 0;
  for (std::string_view domain : {"aro", "samples", "disconnected"}) {
    std::filesystem::path dir = std::filesystem::path(RECON_SOURCE_DIR) / "tests/scenarios" / domain;
    std::vector<std::filesystem::path> files;
    for (const auto& f : std::filesystem::directory_iterator(dir))
      if (f.path().extension() == ".jsonl") files.push_back(f.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      Outcome plain = Reduce(f, false), explained = Reduce(f, true);
      EXPECT_EQ(plain.notes, 0u) << f;
      EXPECT_EQ(plain.actions, explained.actions) << f;
      EXPECT_TRUE(plain.state == explained.state) << f << ": the state differs when explaining";
      notes += explained.notes;
      ++scenarios;
    }
  }
  EXPECT_GT(scenarios, 100u);
  EXPECT_GT(notes, 0u);  // the notes were collected at all
}

}  // namespace
}  // namespace recon::engine
