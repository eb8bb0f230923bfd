// The olm reducer keeps one parsed index per catalog content in use: an
// update replaces its catalog's index instead of adding to them.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "base/strings.h"
#include "domains/olm/reducer.h"
#include "engine/engine.h"
#include "engine/jsonl_reader.h"

namespace recon::olm {
namespace {

TEST(OlmCatalogCache, AnUpdatedCatalogsOldIndexIsDropped) {
  const std::string path = StrCat(RECON_SOURCE_DIR, "/tests/scenarios/olm/catalog_update_mid_upgrade.jsonl");
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::stringstream text;
  text << in.rdbuf();
  engine::JsonlReader reader;
  auto lines = reader.ParseAll(text.str(), path);
  ASSERT_TRUE(lines.ok()) << lines.status();
  std::vector<std::unique_ptr<engine::Reducer>> reducers;
  reducers.push_back(MakeReducer());
  auto* olm = static_cast<OlmReducer*>(reducers.back().get());
  // A hand-written log with no echo of the reducer's writes (its .args).
  ASSERT_TRUE(olm->SetOption("subscriptionWrites", "combined").ok());
  engine::Engine eng(std::move(reducers));
  int contents = 0;
  size_t most = 0;
  std::vector<records::ActionRecord> actions;
  for (size_t i = 0; i < lines->size(); ++i) {
    const records::EventRecord& r = (*lines)[i].event;
    contents += r.type == records::EventType::kContent;
    ASSERT_TRUE(eng.Step(engine::Event::FromRecord(i + 1, r), &actions).ok());
    most = std::max(most, olm->cached_catalog_indexes());
  }
  EXPECT_EQ(contents, 2);  // the catalog, then its update
  EXPECT_GE(olm->resolutions(), 2u);
  EXPECT_EQ(most, 1u);
  EXPECT_EQ(olm->cached_catalog_indexes(), 1u);
}

}  // namespace
}  // namespace recon::olm
