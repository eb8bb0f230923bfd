// The simulated OLM's replacement of CSVs: a CSV that another Succeeded one
// replaces goes, whichever of the two came first (as OLM's operator does).
#include "adapters/sim/olm_executor.h"

#include <gtest/gtest.h>

namespace recon::sim {
namespace {

using engine::Json;

constexpr char kNs[] = "olm-soak-0";

Json Csv(const std::string& name, const std::string& replaces, const std::string& phase) {
  Json c = {{"apiVersion", "operators.coreos.com/v1alpha1"},
            {"kind", "ClusterServiceVersion"},
            {"metadata", {{"name", name}, {"namespace", kNs}}},
            {"spec", Json::object()}};
  if (!replaces.empty()) c["spec"]["replaces"] = replaces;
  if (!phase.empty()) c["status"] = {{"phase", phase}};
  return c;
}

ObjectKey Key(const std::string& name) {
  return ObjectKey{"operators.coreos.com", "ClusterServiceVersion", kNs, name};
}

engine::EventRecord Changed(const Json& csv) {
  engine::EventRecord e;
  e.type = engine::EventType::kModified;
  e.object.group = "operators.coreos.com";
  e.object.version = "v1alpha1";
  e.object.kind = "ClusterServiceVersion";
  e.object.ns = kNs;
  e.object.name = engine::GetString(csv, {"metadata", "name"});
  e.body = engine::Dump(csv);
  return e;
}

std::vector<std::string> Deleted(const std::vector<ControllerWrite>& writes) {
  std::vector<std::string> out;
  for (const auto& w : writes) {
    EXPECT_EQ(w.verb, "delete");
    out.push_back(engine::GetString(w.object, {"metadata", "name"}));
  }
  return out;
}

// Two plans carried out at once (the four-domain soak, seed 6): neither saw
// the other's CSV when it started, so the replacement is judged when the
// newer CSV succeeds.
TEST(OlmExecutor, TheReplacedCsvGoesWhenTheNewerOneSucceeds) {
  Controller executor = OlmInstallPlanExecutor(std::make_shared<OlmBundles>());
  ObjectStore objects;
  objects.Put(Key("op.v1.2.0"), Csv("op.v1.2.0", "op.v1.1.0", "Succeeded"));
  Json newer = Csv("op.v1.2.1", "op.v1.2.0", "");
  objects.Put(Key("op.v1.2.1"), newer);
  EXPECT_TRUE(executor(Changed(newer), objects).empty()) << "not Succeeded yet";
  newer["status"] = {{"phase", "Succeeded"}};
  objects.Put(Key("op.v1.2.1"), newer);
  EXPECT_EQ(Deleted(executor(Changed(newer), objects)), std::vector<std::string>{"op.v1.2.0"});
}

// A plan carried out late installs a CSV that an installed one replaces: the
// late one goes.
TEST(OlmExecutor, ACsvThatAnInstalledOneReplacesGoesWhenItSucceeds) {
  Controller executor = OlmInstallPlanExecutor(std::make_shared<OlmBundles>());
  ObjectStore objects;
  objects.Put(Key("op.v1.2.1"), Csv("op.v1.2.1", "op.v1.2.0", "Succeeded"));
  Json late = Csv("op.v1.2.0", "op.v1.1.0", "Succeeded");
  objects.Put(Key("op.v1.2.0"), late);
  EXPECT_EQ(Deleted(executor(Changed(late), objects)), std::vector<std::string>{"op.v1.2.0"});
}

TEST(OlmExecutor, NothingGoesWithoutAReplacement) {
  Controller executor = OlmInstallPlanExecutor(std::make_shared<OlmBundles>());
  ObjectStore objects;
  Json only = Csv("op.v1.2.1", "op.v1.2.0", "Succeeded");  // v1.2.0 is not there
  objects.Put(Key("op.v1.2.1"), only);
  objects.Put(Key("other.v1"), Csv("other.v1", "", "Succeeded"));
  EXPECT_TRUE(executor(Changed(only), objects).empty());
}

}  // namespace
}  // namespace recon::sim
