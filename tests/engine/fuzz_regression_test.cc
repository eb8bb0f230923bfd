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

// A snapshot whose cluster facts field is a null Data pointer handed simdjson
// a null pointer to memcpy from (UBSan); it must simply restore or fail.
TEST(FuzzRegressionTest, SnapshotWithNullFactsRestoresWithoutUb) {
  std::string input = ReadRegression("crash-null-json-data");
  ASSERT_FALSE(input.empty());
  std::vector<std::unique_ptr<Reducer>> reducers;
  reducers.push_back(samples::MakeReducer());
  reducers.push_back(olm::MakeReducer());
  reducers.push_back(aro::MakeReducer());
  Engine engine(std::move(reducers));
  (void)engine.Restore(input);  // the check is UBSan's (scripts/test --sanitize)
}

TEST(FuzzRegressionTest, ParseJsonOfNullViewIsAnError) {
  auto j = ParseJson(std::string_view());
  EXPECT_FALSE(j.ok());
}

}  // namespace
}  // namespace recon::engine
