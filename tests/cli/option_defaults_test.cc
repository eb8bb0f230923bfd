// Every option's default is recorded in a run's Cluster event (issue 49:
// olm.executePlans changed its default; a log must replay as it ran), so
// every default must be a value its domain accepts.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "cli/domains.h"
#include "engine/engine.h"

namespace recon::cli {
namespace {

TEST(OptionDefaults, EveryDomainAcceptsItsOwnDefaults) {
  auto reducers = MakeReducers("");
  ASSERT_TRUE(reducers.ok()) << reducers.status();
  std::vector<std::pair<std::string, std::string>> defaults;
  for (const auto& r : *reducers) {
    for (const auto& spec : r->Describe().options) {
      if (spec.directory_content) continue;
      defaults.emplace_back(std::string(r->Domain()) + "." + spec.key, spec.default_value);
    }
  }
  EXPECT_GE(defaults.size(), 10u);
  auto s = ValidateOptions(defaults);
  EXPECT_TRUE(s.ok()) << s;
}

TEST(OptionDefaults, AGivenValueStaysDefaultsFillTheRestDirectoriesOnlyWhenGiven) {
  auto reducers = MakeReducers("olm,samples");
  ASSERT_TRUE(reducers.ok()) << reducers.status();
  engine::Engine engine(std::move(*reducers));
  engine::Json options = {{"olm.executePlans", "true"}};
  engine.AddOptionDefaults(options);
  EXPECT_EQ(options["olm.executePlans"], "true");
  EXPECT_EQ(options["olm.globalNamespace"], "openshift-marketplace");
  EXPECT_EQ(options["samples.removalImportWait"], "10m");
  EXPECT_FALSE(options.contains("samples.inventory"));  // a directory: a Content event when given
  EXPECT_FALSE(options.contains("aro.role"));           // a domain not running
}

}  // namespace
}  // namespace recon::cli
