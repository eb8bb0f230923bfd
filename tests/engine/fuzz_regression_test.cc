// Inputs fuzz/fuzz_snapshot_restore once failed on (fuzz/regressions/).
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "domains/aro/reducer.h"
#include "domains/olm/reducer.h"
#include "domains/samples/reducer.h"
#include "engine/engine.h"
#include "engine/json.h"
#include "gtest/gtest.h"

namespace recon::engine {
namespace {

std::string ReadRegression(const std::string& name) {
  std::ifstream in(std::string(RECON_SOURCE_DIR) + "/fuzz/regressions/fuzz_snapshot_restore/" + name,
                   std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::unique_ptr<Reducer>> NewReducers() {
  std::vector<std::unique_ptr<Reducer>> reducers;
  reducers.push_back(samples::MakeReducer());
  reducers.push_back(olm::MakeReducer());
  reducers.push_back(aro::MakeReducer());
  return reducers;
}

// A snapshot whose cluster facts field is a null Data pointer handed simdjson
// a null pointer to memcpy from (UBSan); it must simply restore or fail.
TEST(FuzzRegressionTest, SnapshotWithNullFactsRestoresWithoutUb) {
  std::string input = ReadRegression("crash-null-json-data");
  ASSERT_FALSE(input.empty());
  Engine engine(NewReducers());
  (void)engine.Restore(input);  // the check is UBSan's (scripts/test --sanitize)
}

// A snapshot with a list of zero-size elements claiming ~2^29 entries looped
// for minutes (no traversal limit); now the limit scales with the snapshot.
TEST(FuzzRegressionTest, SnapshotWithHugeEmptyListFailsFast) {
  std::string input = ReadRegression("timeout-zero-size-list");
  ASSERT_FALSE(input.empty());
  Engine engine(NewReducers());
  auto st = engine.Restore(input);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), absl::StatusCode::kDataLoss);
}

TEST(FuzzRegressionTest, ParseJsonOfNullViewIsAnError) {
  auto j = ParseJson(std::string_view());
  EXPECT_FALSE(j.ok());
}

}  // namespace
}  // namespace recon::engine
