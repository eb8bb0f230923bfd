// Failed writes and late watch events, as the soak with write faults showed
// them: a failed write is decided again from the world (upstream requeues
// on error) instead of being re-sent as it was; a cleanup delete that lands
// after Removed→Managed is repaired; tracking ConfigMaps do not outlive
// their stream's last event.
#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "domains/samples/reducer.h"
#include "engine/emit.h"
#include "engine/event.h"
#include "engine/json.h"
#include "engine/jsonl_reader.h"
#include "records/record.h"
#include "tests/domains/samples/scenario_util.h"

namespace recon::samples {
namespace {

using engine::Json;

// The samples domain after a converged Managed start: jenkins, nodejs and
// ruby imported, two templates, the Config's status in place (lines 1–10 of
// a scenario).
class Samples {
 public:
  Samples() : engine_(testing::SamplesEngine()) {
    auto start = testing::ScenarioEvents("removed_managed_flip_clears_remove_pending");
    for (size_t i = 0; i < 10 && i < start.size(); ++i) {
      if (start[i].type == records::EventType::kAdded) {
        auto j = engine::ParseJson(start[i].body);
        if (j.ok() && engine::GetString(*j, {"kind"}) == "Config") config_ = *j;
        if (j.ok() && engine::GetString(*j, {"kind"}) == "ImageStream" &&
            engine::GetString(*j, {"metadata", "name"}) == "nodejs")
          nodejs_ = *j;
      }
      Step(std::move(start[i]));
    }
  }

  std::vector<records::ActionRecord> Line(const Json& event) {
    engine::JsonlReader reader;
    auto r = reader.ParseLine(engine::Dump(event), records_.size() + 1);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? Step(std::move(*r)) : std::vector<records::ActionRecord>{};
  }

  // The Config as our last status write left it, spec set to `mgmt`.
  std::vector<records::ActionRecord> Config(const std::string& mgmt) {
    Json o = config_;
    for (const auto& a : all_)
      if (a.verb == "updateStatus" && a.object.kind == "Config")
        o["status"] = (*engine::ParseJson(a.body))["status"];
    o["spec"]["managementState"] = mgmt;
    o["metadata"]["resourceVersion"] = std::to_string(++rv_);
    return Line(Event("Modified", o));
  }

  std::vector<records::ActionRecord> Failed(const records::ActionRecord& a, int status,
                                            const std::string& error = "InternalError: injected") {
    return Result(a, {{"ok", false}, {"status", status}, {"error", error}});
  }

  std::vector<records::ActionRecord> Answered(const records::ActionRecord& a, int status,
                                              const std::string& rv) {
    return Result(a, {{"ok", true}, {"status", status}, {"resourceVersion", rv}});
  }

  Json Event(const std::string& type, const Json& object) {
    return Json{{"time", Time()}, {"type", type}, {"object", object}};
  }

  const Json& nodejs() const { return nodejs_; }

  // An admin (or cleanup) deleted the nodejs stream: its Deleted event.
  std::vector<records::ActionRecord> DeleteNodejs() {
    return Line(Event("Deleted", Json{{"apiVersion", "image.openshift.io/v1"},
                                      {"kind", "ImageStream"},
                                      {"metadata", {{"name", "nodejs"}, {"namespace", "openshift"}}}}));
  }

 private:
  // The ActionResult of `a` with `fields` (ok, status, ...).
  std::vector<records::ActionRecord> Result(const records::ActionRecord& a, Json fields) {
    Json r = {{"time", Time()}, {"type", "ActionResult"}, {"action", engine::ActionId(a.cause_seq, a.index)}};
    r.update(fields);
    return Line(r);
  }

  std::vector<records::ActionRecord> Step(records::EventRecord r) {
    records_.push_back(std::move(r));
    std::vector<records::ActionRecord> out;
    auto s = engine_->Step(engine::Event::FromRecord(records_.size(), records_.back()), &out);
    EXPECT_TRUE(s.ok()) << s;
    all_.insert(all_.end(), out.begin(), out.end());
    return out;
  }
  std::string Time() {
    const int s = seconds_++;  // read once: the test, then the digits (one expression left them unsequenced)
    return "2026-11-21T10:20:" + std::string(s < 10 ? "0" : "") + std::to_string(s) + "Z";
  }

  std::unique_ptr<engine::Engine> engine_;
  std::deque<records::EventRecord> records_;  // events view into them
  std::vector<records::ActionRecord> all_;
  Json config_, nodejs_;
  int rv_ = 1000, seconds_ = 0;
};

std::vector<std::string> Writes(const std::vector<records::ActionRecord>& actions, const std::string& kind) {
  std::vector<std::string> out;
  for (const auto& a : actions)
    if (a.object.kind == kind) out.push_back(a.verb + " " + a.object.name);
  return out;
}

const records::ActionRecord* Find(const std::vector<records::ActionRecord>& actions, const std::string& verb,
                                  const std::string& kind, const std::string& name) {
  for (const auto& a : actions)
    if (a.verb == verb && a.object.kind == kind && a.object.name == name) return &a;
  return nullptr;
}

TEST(FailedWrites, TheRuntimeLeavesThemToTheDomain) {
  EXPECT_TRUE(MakeReducer()->Describe().redecides_failed_writes);
}

TEST(FailedWrites, CleanupDeleteIsRepeatedWhileRemovedAndDroppedAfterTheFlipBack) {
  Samples run;
  run.Config("Removed");                 // stage 1: RemovePending
  auto cleanup = run.Config("Removed");  // stage 2: cleanup
  const records::ActionRecord* del = Find(cleanup, "delete", "ImageStream", "jenkins");
  ASSERT_NE(del, nullptr);
  // A 500 while still Removed: the delete still stands.
  auto again = run.Failed(*del, 500);
  EXPECT_EQ(Writes(again, "ImageStream"), std::vector<std::string>{"delete jenkins"});
  // Back to Managed before it went through: a 429 on it is not followed by
  // another delete (the runtime no longer re-sends it either).
  run.Config("Managed");
  ASSERT_FALSE(again.empty());
  auto after = run.Failed(again.front(), 429);
  EXPECT_EQ(Find(after, "delete", "ImageStream", "jenkins"), nullptr);
}

TEST(FailedWrites, ServerErrorOnARecreateCreatesAgain) {
  Samples run;
  auto recreate = run.DeleteNodejs();  // an admin deleted it: reverted
  const records::ActionRecord* create = Find(recreate, "create", "ImageStream", "nodejs");
  ASSERT_NE(create, nullptr);
  auto again = run.Failed(*create, 503);
  const records::ActionRecord* second = Find(again, "create", "ImageStream", "nodejs");
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->body, create->body);
  EXPECT_NE(engine::ActionId(second->cause_seq, second->index),
            engine::ActionId(create->cause_seq, create->index));
}

// Upstream tolerates AlreadyExists on create: the object exists and its
// event is late. Creating again until it arrives would only be refused.
TEST(FailedWrites, AlreadyExistsOnARecreateWaitsForTheObjectsEvent) {
  Samples run;
  auto recreate = run.DeleteNodejs();
  const records::ActionRecord* create = Find(recreate, "create", "ImageStream", "nodejs");
  ASSERT_NE(create, nullptr);
  auto refused =
      run.Failed(*create, 409, "AlreadyExists: imagestreams.image.openshift.io \"nodejs\" already exists");
  EXPECT_EQ(Find(refused, "create", "ImageStream", "nodejs"), nullptr);
  // A full reconcile before the event does not create it either.
  auto reconcile = run.Config("Managed");
  EXPECT_EQ(Find(reconcile, "create", "ImageStream", "nodejs"), nullptr);
  // The late event: the stream is there, as the create would have made it.
  Json back = run.nodejs();
  back["metadata"]["resourceVersion"] = "2001";
  auto echo = run.Line(run.Event("Added", back));
  EXPECT_EQ(Find(echo, "create", "ImageStream", "nodejs"), nullptr);
  // Deleted again once seen: recreated.
  auto again = run.DeleteNodejs();
  EXPECT_NE(Find(again, "create", "ImageStream", "nodejs"), nullptr);
}

// A stream we recreated, seen, then deleted again is recreated again.
TEST(FailedWrites, RecreatedStreamDeletedAgainIsRecreatedAgain) {
  Samples run;
  auto recreate = run.DeleteNodejs();
  ASSERT_NE(Find(recreate, "create", "ImageStream", "nodejs"), nullptr);
  Json back = run.nodejs();
  back["metadata"]["resourceVersion"] = "2001";
  run.Line(run.Event("Added", back));
  auto again = run.DeleteNodejs();
  EXPECT_NE(Find(again, "create", "ImageStream", "nodejs"), nullptr);
}

TEST(CleanupDelete, LandingAfterTheFlipBackToManagedIsRepaired) {
  Samples run;
  run.Config("Removed");
  run.Config("Removed");  // cleanup: deletes every stream
  run.Config("Managed");  // flipped back before the deletes went through
  run.Config("Managed");  // RemovePending False
  auto upsert = run.Config("Managed");
  // The streams are still there and as the inventory wants them: no write,
  // and no pending ConfigMap no stream event would ever clear.
  EXPECT_TRUE(Writes(upsert, "ImageStream").empty());
  EXPECT_TRUE(Writes(upsert, "ConfigMap").empty());
  // Now cleanup's delete of nodejs lands: it is recreated.
  auto late = run.DeleteNodejs();
  EXPECT_EQ(Writes(late, "ImageStream"), std::vector<std::string>{"create nodejs"});
  EXPECT_EQ(Writes(late, "ConfigMap"), std::vector<std::string>{"create nodejs"});
}

// The per-imagestream tracking ConfigMap of nodejs, as the cluster echoes it.
Json PendingNodejsConfigMap() {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata",
           {{"name", "nodejs"},
            {"namespace", "openshift-cluster-samples-operator"},
            {"resourceVersion", "2001"}}}};
}

TEST(PendingConfigMap, LandingAfterItsStreamsEventsIsCleared) {
  Samples run;
  auto recreate = run.DeleteNodejs();
  ASSERT_EQ(Writes(recreate, "ConfigMap"), std::vector<std::string>{"create nodejs"});
  // The stream's echo (imported) comes first: no ConfigMap to clear yet.
  Json is = (*engine::ParseJson(Find(recreate, "create", "ImageStream", "nodejs")->body));
  is["metadata"]["resourceVersion"] = "2000";
  is["status"] = run.nodejs()["status"];
  EXPECT_TRUE(Writes(run.Line(run.Event("Added", is)), "ConfigMap").empty());
  // Then the pending ConfigMap: nothing is pending any more.
  Json cm = PendingNodejsConfigMap();
  EXPECT_EQ(Writes(run.Line(run.Event("Added", cm)), "ConfigMap"), std::vector<std::string>{"delete nodejs"});
}

// The stream's echo before both its create's answer and the ConfigMap's
// event (answers carry versions): the ConfigMap waits on the unanswered
// create, and is cleared at the answer (four-domain soak, seed 17).
TEST(PendingConfigMap, LandingBeforeItsStreamsAnswerIsClearedAtTheAnswer) {
  Samples run;
  auto recreate = run.DeleteNodejs();
  const records::ActionRecord* is_create = Find(recreate, "create", "ImageStream", "nodejs");
  const records::ActionRecord* cm_create = Find(recreate, "create", "ConfigMap", "nodejs");
  ASSERT_NE(is_create, nullptr);
  ASSERT_NE(cm_create, nullptr);
  const records::ActionRecord stream_write = *is_create;
  EXPECT_TRUE(Writes(run.Answered(*cm_create, 201, "2001"), "ConfigMap").empty());
  Json is = (*engine::ParseJson(stream_write.body));
  is["metadata"]["resourceVersion"] = "2000";
  is["status"] = run.nodejs()["status"];
  EXPECT_TRUE(Writes(run.Line(run.Event("Added", is)), "ConfigMap").empty());
  // The ConfigMap lands while the stream's create is unanswered: kept.
  EXPECT_TRUE(Writes(run.Line(run.Event("Added", PendingNodejsConfigMap())), "ConfigMap").empty());
  // The create's answer names the version already seen: the stream is done.
  EXPECT_EQ(Writes(run.Answered(stream_write, 201, "2000"), "ConfigMap"),
            std::vector<std::string>{"delete nodejs"});
}

TEST(PendingConfigMap, KeptWhileItsStreamsUpsertIsUnderWay) {
  Samples run;
  run.DeleteNodejs();
  // The pending ConfigMap before the stream exists: kept.
  Json cm = PendingNodejsConfigMap();
  EXPECT_TRUE(Writes(run.Line(run.Event("Added", cm)), "ConfigMap").empty());
}

}  // namespace
}  // namespace recon::samples
