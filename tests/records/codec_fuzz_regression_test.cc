// Inputs fuzz/fuzz_store_record once crashed on (fuzz/regressions/): each
// must decode to an error, never throw out of the decoder.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "engine/event.h"
#include "gtest/gtest.h"
#include "records/codec.h"

namespace recon::records {
namespace {

std::string ReadRegression(const std::string& name) {
  std::ifstream in(std::string(RECON_SOURCE_DIR) + "/fuzz/regressions/fuzz_store_record/" + name,
                   std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A pointer of the wrong kind (a list where the ObjectId struct belongs)
// passed EventView::Parse, and Event::FromCapnp then threw a kj exception
// that terminated replay.
TEST(FuzzRegressionTest, EventViewRejectsWrongPointerKind) {
  std::string input = ReadRegression("crash-event-view-wrong-pointer-kind");
  ASSERT_FALSE(input.empty());
  auto view = EventView::Parse(input);
  ASSERT_FALSE(view.ok());
  EXPECT_EQ(view.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_FALSE(DecodeEvent(input).ok());
}

// The same for the ActionResult's resourceVersion (issue 19's new field):
// EventView::Parse did not touch it, so FromCapnp threw (found by the CI
// fuzz step the day the field was added).
TEST(FuzzRegressionTest, EventViewTouchesTheActionResultResourceVersion) {
  std::string input = ReadRegression("crash-action-result-rv-wrong-pointer-kind");
  ASSERT_FALSE(input.empty());
  auto view = EventView::Parse(input);
  ASSERT_FALSE(view.ok());
  EXPECT_EQ(view.status().code(), absl::StatusCode::kDataLoss);
}

// A Content payload whose file list claims ~2^29 zero-size elements made
// DecodeContent reserve 4.6 GB; the traversal limit now scales with the
// payload, so it is a DataLoss error.
TEST(FuzzRegressionTest, ContentWithHugeEmptyListIsAnError) {
  std::string input = ReadRegression("oom-content-list-count");
  ASSERT_FALSE(input.empty());
  auto files = DecodeContent(input);
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.status().code(), absl::StatusCode::kDataLoss);
}

// Every stored regression input: whatever parses must be readable without
// throwing.
TEST(FuzzRegressionTest, AllInputsDecodeOrFail) {
  for (const auto& e : std::filesystem::directory_iterator(std::string(RECON_SOURCE_DIR) +
                                                           "/fuzz/regressions/fuzz_store_record")) {
    std::string input = ReadRegression(e.path().filename().string());
    (void)DecodeEvent(input);
    (void)DecodeAction(input);
    (void)DecodeContent(input);
    if (auto view = EventView::Parse(input); view.ok()) (void)engine::Event::FromCapnp(view->reader());
  }
}

}  // namespace
}  // namespace recon::records
