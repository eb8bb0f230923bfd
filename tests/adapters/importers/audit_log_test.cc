// adapters/importers/audit_log: kube-apiserver audit lines -> object events.
#include "adapters/importers/audit_log.h"

#include <sstream>
#include <string>
#include <vector>

#include "base/strings.h"
#include "engine/json.h"
#include "engine/time_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/adapters/importers/declared_kinds.h"

namespace recon::adapters::importers {
namespace {

using engine::Json;
using records::EventType;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

using testing::Declared;

Json Stream(std::string_view name, std::string_view rv) {
  return Json{{"apiVersion", "image.openshift.io/v1"},
              {"kind", "ImageStream"},
              {"metadata",
               {{"name", name},
                {"namespace", "openshift"},
                {"uid", recon::StrCat("uid-", name)},
                {"resourceVersion", rv},
                {"managedFields",
                 Json::array({{{"manager", "cluster-samples-operator"}, {"operation", "Update"}}})}}},
              {"spec", {{"tags", Json::array()}}}};
}

// One audit line. `second` is the stageTimestamp's second past 10:00:00.
struct Line {
  std::string verb = "create";
  std::string resource = "imagestreams";
  std::string group = "image.openshift.io";
  std::string ns = "openshift";
  std::string name = "ruby";
  std::string subresource = "";  // (initialized: designated initializers may omit it)
  std::string stage = "ResponseComplete";
  std::string level = "RequestResponse";
  int code = 201;
  int second = 0;
  std::string audit_id = "";
  Json response = nullptr;

  std::string Text() const {
    Json ref = {{"resource", resource}, {"apiGroup", group}, {"apiVersion", "v1"}, {"name", name}};
    if (!ns.empty()) ref["namespace"] = ns;
    if (!subresource.empty()) ref["subresource"] = subresource;
    Json e = {
        {"kind", "Event"},
        {"apiVersion", "audit.k8s.io/v1"},
        {"level", level},
        {"auditID", audit_id.empty() ? recon::StrCat("id-", verb, "-", name, "-", second) : audit_id},
        {"stage", stage},
        {"requestURI", "/apis/..."},
        {"verb", verb},
        {"user",
         {{"username", "system:serviceaccount:openshift-cluster-samples-operator:cluster-samples-operator"}}},
        {"objectRef", ref},
        {"responseStatus", {{"metadata", Json::object()}, {"code", code}}}};
    if (!response.is_null() && level == "RequestResponse") e["responseObject"] = response;
    e["requestReceivedTimestamp"] =
        recon::StrCat("2026-11-21T10:00:", second < 10 ? "0" : "", second, ".000000Z");
    e["stageTimestamp"] = recon::StrCat("2026-11-21T10:00:", second < 10 ? "0" : "", second, ".012345Z");
    return engine::Dump(e) + "\n";
  }
};

int64_t At(int second) {
  return *engine::ParseRfc3339(
      recon::StrCat("2026-11-21T10:00:", second < 10 ? "0" : "", second, ".012345Z"));
}

absl::StatusOr<ImportResult> Decode(const std::string& text, const KindFilter& f = Declared()) {
  return DecodeAuditLogs({{"audit.log", text}}, f);
}

Json Body(const records::EventRecord& e) { return *engine::ParseJson(e.body); }

TEST(AuditLog, EveryVerbAndTheStatusSubresource) {
  std::string log;
  log += Line{.verb = "create", .code = 201, .second = 1, .response = Stream("ruby", "10")}.Text();
  log += Line{.verb = "update", .code = 200, .second = 2, .response = Stream("ruby", "11")}.Text();
  log += Line{.verb = "patch", .code = 200, .second = 3, .response = Stream("ruby", "12")}.Text();
  Json with_status = Stream("ruby", "13");
  with_status["status"] = {
      {"tags", Json::array({{{"tag", "3.3-ubi9"}, {"items", Json::array({{{"image", "sha256:1"}}})}}})}};
  log += Line{.verb = "update", .subresource = "status", .code = 200, .second = 4, .response = with_status}
             .Text();
  // delete answered with the object, and one answered with a Status.
  log += Line{.verb = "delete", .code = 200, .second = 5, .response = Stream("ruby", "14")}.Text();
  log += Line{.verb = "delete",
              .name = "nodejs",
              .code = 200,
              .second = 6,
              .response = {{"kind", "Status"},
                           {"apiVersion", "v1"},
                           {"status", "Success"},
                           {"details",
                            {{"name", "nodejs"},
                             {"group", "image.openshift.io"},
                             {"kind", "imagestreams"},
                             {"uid", "uid-nodejs"}}}}}
             .Text();
  // deletecollection answered with the deleted objects.
  log += Line{.verb = "deletecollection",
              .name = "",
              .code = 200,
              .second = 7,
              .response = {{"apiVersion", "image.openshift.io/v1"},
                           {"kind", "ImageStreamList"},
                           {"items", Json::array({Stream("perl", "20"), Stream("php", "21")})}}}
             .Text();
  // PUT that created (201) is an Added.
  log +=
      Line{.verb = "update", .name = "golang", .code = 201, .second = 8, .response = Stream("golang", "22")}
          .Text();
  auto r = Decode(log);
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<std::pair<EventType, std::string>> got;
  for (const auto& e : r->events) got.emplace_back(e.type, e.object.name);
  EXPECT_THAT(got, ElementsAre(Pair(EventType::kAdded, "ruby"), Pair(EventType::kModified, "ruby"),
                               Pair(EventType::kModified, "ruby"), Pair(EventType::kModified, "ruby"),
                               Pair(EventType::kDeleted, "ruby"), Pair(EventType::kDeleted, "nodejs"),
                               Pair(EventType::kDeleted, "perl"), Pair(EventType::kDeleted, "php"),
                               Pair(EventType::kAdded, "golang")));
  ASSERT_EQ(r->events.size(), 9u);
  const auto& created = r->events[0];
  EXPECT_EQ(created.time_ns, At(1));
  EXPECT_EQ(created.object.group, "image.openshift.io");
  EXPECT_EQ(created.object.version, "v1");
  EXPECT_EQ(created.object.kind, "ImageStream");
  EXPECT_EQ(created.object.ns, "openshift");
  EXPECT_EQ(created.object.uid, "uid-ruby");
  EXPECT_EQ(created.object.resource_version, "10");
  // The object as the server answered, managedFields included.
  EXPECT_EQ(engine::GetString(Body(created), {"metadata", "resourceVersion"}), "10");
  EXPECT_TRUE(Body(created)["metadata"]["managedFields"].is_array());
  EXPECT_EQ(Body(r->events[3])["status"]["tags"][0]["tag"], "3.3-ubi9");
  // A Status answer: the Deleted event is built from objectRef, the kind
  // from the declared plural, the uid from the Status details.
  const auto& status_delete = r->events[5];
  EXPECT_EQ(status_delete.object.kind, "ImageStream");
  EXPECT_EQ(status_delete.object.uid, "uid-nodejs");
  EXPECT_EQ(
      status_delete.body,
      R"({"apiVersion":"image.openshift.io/v1","kind":"ImageStream","metadata":{"name":"nodejs","namespace":"openshift","uid":"uid-nodejs"}})");
  EXPECT_EQ(r->events[6].time_ns, r->events[7].time_ns);
  EXPECT_TRUE(r->skipped.empty());
  EXPECT_EQ(r->read, 8u);
}

TEST(AuditLog, FinalizersDecideWhetherADeleteIsDone) {
  Json pending = Stream("ruby", "30");
  pending["metadata"]["deletionTimestamp"] = "2026-11-21T10:00:01Z";
  pending["metadata"]["finalizers"] = Json::array({"example.com/keep"});
  Json released = Stream("ruby", "31");
  released["metadata"]["deletionTimestamp"] = "2026-11-21T10:00:01Z";
  std::string log = Line{.verb = "delete", .code = 200, .second = 1, .response = pending}.Text() +
                    Line{.verb = "patch", .code = 200, .second = 2, .response = released}.Text();
  // A Pod deleted with a grace period is there until its kubelet deletes
  // it with none.
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata",
               {{"name", "p"},
                {"namespace", "openshift"},
                {"resourceVersion", "40"},
                {"deletionTimestamp", "2026-11-21T10:00:03Z"},
                {"deletionGracePeriodSeconds", 30}}}};
  log += Line{.verb = "delete",
              .resource = "pods",
              .group = "",
              .name = "p",
              .code = 200,
              .second = 3,
              .response = pod}
             .Text();
  pod["metadata"]["deletionGracePeriodSeconds"] = 0;
  log += Line{.verb = "delete",
              .resource = "pods",
              .group = "",
              .name = "p",
              .code = 200,
              .second = 4,
              .response = pod}
             .Text();
  KindFilter all = Declared();
  all.all_kinds = true;
  auto r = Decode(log, all);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->events.size(), 4u);
  EXPECT_EQ(r->events[0].type, EventType::kModified);  // still there, being deleted
  EXPECT_EQ(r->events[1].type, EventType::kDeleted);   // the last finalizer went
  EXPECT_EQ(r->events[2].type, EventType::kModified);
  EXPECT_EQ(r->events[3].type, EventType::kDeleted);
}

TEST(AuditLog, OrderedByStageTimestampThenAuditId) {
  std::string log =
      Line{.verb = "update", .second = 9, .audit_id = "b", .response = Stream("ruby", "3")}.Text() +
      Line{.verb = "create", .second = 2, .audit_id = "z", .response = Stream("ruby", "1")}.Text() +
      Line{.verb = "update", .second = 9, .audit_id = "a", .response = Stream("ruby", "2")}.Text();
  auto r = Decode(log);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->events.size(), 3u);
  EXPECT_EQ(r->events[0].object.resource_version, "1");
  EXPECT_EQ(r->events[1].object.resource_version, "2");
  EXPECT_EQ(r->events[2].object.resource_version, "3");
}

TEST(AuditLog, SkipsReadsFailuresOtherStagesAndBodilessLines) {
  std::string log;
  log += Line{.verb = "get", .level = "Metadata", .code = 200}.Text();
  log += Line{.verb = "list", .name = "", .level = "Metadata", .code = 200}.Text();
  log += Line{.verb = "watch", .name = "", .level = "Metadata", .code = 200}.Text();
  log += Line{.verb = "create", .stage = "RequestReceived", .response = Stream("ruby", "1")}.Text();
  log += Line{.verb = "create", .stage = "ResponseStarted", .response = Stream("ruby", "1")}.Text();
  log += Line{.verb = "update",
              .code = 409,
              .response = {{"kind", "Status"}, {"apiVersion", "v1"}, {"code", 409}}}
             .Text();
  log += Line{.verb = "update",
              .code = 422,
              .response = {{"kind", "Status"}, {"apiVersion", "v1"}, {"code", 422}}}
             .Text();
  log += Line{.verb = "create", .level = "Metadata", .response = Stream("ruby", "1")}.Text();
  log += Line{.verb = "create", .level = "Request", .response = Stream("ruby", "1")}.Text();
  Json truncated = *engine::ParseJson(Line{.verb = "create", .second = 4}.Text());
  truncated["annotations"] = {{"audit.k8s.io/truncated", "true"}};
  log += engine::Dump(truncated) + "\n";
  log += Line{.verb = "update",
              .resource = "leases",
              .group = "coordination.k8s.io",
              .name = "lock",
              .code = 200,
              .response = {{"apiVersion", "coordination.k8s.io/v1"},
                           {"kind", "Lease"},
                           {"metadata", {{"name", "lock"}}}}}
             .Text();
  log +=
      Line{
          .verb = "update",
          .subresource = "scale",
          .code = 200,
          .response = {{"apiVersion", "autoscaling/v1"}, {"kind", "Scale"}, {"metadata", {{"name", "ruby"}}}}}
          .Text();
  log += Line{.verb = "create", .second = 5, .response = Stream("ruby", "1")}.Text();
  auto r = Decode(log);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->events.size(), 1u);
  EXPECT_EQ(r->read, 13u);
  EXPECT_THAT(
      r->skipped,
      ::testing::UnorderedElementsAre(
          Pair("reads (get, list, watch)", 3),
          Pair("not at stage ResponseComplete (only that stage carries the answer)", 2),
          Pair("failed writes (HTTP 409)", 1), Pair("failed writes (HTTP 422)", 1),
          Pair("without a responseObject (level Metadata or Request: the policy logged no answer)", 2),
          Pair("truncated by the apiserver (audit.k8s.io/truncated: the bodies were dropped)", 1),
          Pair("writes to kinds no domain declares (--all-kinds keeps them)", 1),
          Pair("writes to subresources whose answer is not the object (e.g. scale)", 1)));
  // The cli prints them most frequent first.
  EXPECT_EQ(DescribeSkipped(*r).front(), "3 reads (get, list, watch)");
}

TEST(AuditLog, TruncatedLines) {
  const std::string good = Line{.verb = "create", .second = 1, .response = Stream("ruby", "1")}.Text();
  const std::string cut =
      Line{.verb = "update", .second = 2, .response = Stream("ruby", "2")}.Text().substr(0, 90);
  // The last line of a log copied while the apiserver wrote it: skipped.
  auto r = Decode(good + cut);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->events.size(), 1u);
  EXPECT_THAT(r->skipped, ElementsAre(Pair(HasSubstr("truncated last line"), 1)));
  // A cut line with lines after it is damage: named, nothing returned.
  auto bad = Decode(good + cut + "\n" + good);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("audit.log: line 2: malformed JSON"));
}

TEST(AuditLog, StreamsDecodeAsWholeFiles) {
  const std::string good = Line{.verb = "create", .second = 1, .response = Stream("ruby", "1")}.Text();
  const std::string cut =
      Line{.verb = "update", .second = 2, .response = Stream("ruby", "2")}.Text().substr(0, 90);
  for (const std::string& text : {good + good, good + cut, good + "\n\n" + good.substr(0, good.size() - 1)}) {
    std::istringstream in(text);
    auto streamed = DecodeAuditStreams({{"audit.log", &in}}, Declared());
    auto whole = Decode(text);
    ASSERT_TRUE(streamed.ok()) << streamed.status();
    ASSERT_TRUE(whole.ok()) << whole.status();
    EXPECT_EQ(streamed->events.size(), whole->events.size());
    EXPECT_EQ(streamed->skipped, whole->skipped);
    EXPECT_EQ(streamed->read, whole->read);
  }
  std::istringstream bad(good + cut + "\n" + good);
  auto r = DecodeAuditStreams({{"audit.log", &bad}}, Declared());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("audit.log: line 2: malformed JSON"));
}

TEST(AuditLog, BadInputNamesLineAndField) {
  const std::string good = Line{.verb = "create", .second = 1, .response = Stream("ruby", "1")}.Text();
  auto expect_error = [&](const std::string& line, std::string_view want) {
    auto r = Decode(good + "\n" + line);
    ASSERT_FALSE(r.ok()) << line;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(r.status().message(), HasSubstr(want)) << line;
  };
  Json e = *engine::ParseJson(Line{.verb = "update", .second = 2, .response = Stream("ruby", "2")}.Text());
  Json v = e;
  v["apiVersion"] = "audit.k8s.io/v1beta1";
  expect_error(engine::Dump(v),
               R"(audit.log: line 3: "apiVersion": expected "audit.k8s.io/v1", got "audit.k8s.io/v1beta1")");
  v = e;
  v.erase("stageTimestamp");
  expect_error(engine::Dump(v), R"(line 3: "stageTimestamp": missing)");
  v = e;
  v["stageTimestamp"] = "yesterday";
  expect_error(engine::Dump(v), R"(line 3: "stageTimestamp": )");
  v = e;
  v["responseObject"]["metadata"].erase("name");
  expect_error(engine::Dump(v), R"(line 3: "responseObject.metadata.name": missing)");
  v = e;
  v["responseStatus"].erase("code");
  expect_error(engine::Dump(v), R"(line 3: "responseStatus.code": expected the HTTP status code)");
  v = e;
  v["kind"] = "EventList";
  expect_error(engine::Dump(v), R"(line 3: "kind": expected "Event")");
  expect_error("[1,2]", "line 3: expected a JSON object");
}

TEST(AuditLog, ImageStreamImportAnswersCarryTheStream) {
  Json stream = Stream("jenkins", "40");
  stream["status"] = {
      {"tags", Json::array({{{"tag", "2"}, {"items", Json::array({{{"image", "sha256:2"}}})}}})}};
  Json isi = {{"kind", "ImageStreamImport"},
              {"apiVersion", "image.openshift.io/v1"},
              {"metadata", {{"name", "jenkins"}, {"namespace", "openshift"}}},
              {"spec", {{"import", true}}},
              {"status", {{"import", stream}}}};
  Json dry_run = isi;
  dry_run["spec"]["import"] = false;
  dry_run["status"].erase("import");
  std::string log =
      Line{
          .verb = "create", .resource = "imagestreamimports", .name = "jenkins", .second = 1, .response = isi}
          .Text() +
      Line{.verb = "create",
           .resource = "imagestreamimports",
           .name = "jenkins",
           .second = 2,
           .response = dry_run}
          .Text();
  auto r = Decode(log);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->events.size(), 1u);
  EXPECT_EQ(r->events[0].type, EventType::kModified);
  EXPECT_EQ(r->events[0].object.kind, "ImageStream");
  EXPECT_EQ(r->events[0].object.resource_version, "40");
  EXPECT_EQ(Body(r->events[0])["status"]["tags"][0]["tag"], "2");
}

TEST(AuditLog, AllKindsAndDeletesOfKindsNamedElsewhere) {
  Json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                {"kind", "Lease"},
                {"metadata", {{"name", "lock"}, {"namespace", "ns"}, {"resourceVersion", "8"}}}};
  Json status = {{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Success"}};
  std::string log =
      // The delete comes first in the file; the kind is learned from the later create line.
      Line{.verb = "delete",
           .resource = "leases",
           .group = "coordination.k8s.io",
           .ns = "ns",
           .name = "lock",
           .code = 200,
           .second = 5,
           .response = status}
          .Text() +
      Line{.verb = "create",
           .resource = "leases",
           .group = "coordination.k8s.io",
           .ns = "ns",
           .name = "lock",
           .second = 1,
           .response = lease}
          .Text() +
      Line{.verb = "delete",
           .resource = "widgets",
           .group = "example.com",
           .ns = "ns",
           .name = "w",
           .code = 200,
           .second = 6,
           .response = status}
          .Text();
  // A TokenReview is answered, never stored (and carries a bearer token).
  log += Line{.verb = "create",
              .resource = "tokenreviews",
              .group = "authentication.k8s.io",
              .ns = "",
              .name = "",
              .second = 7,
              .response = {{"apiVersion", "authentication.k8s.io/v1"},
                           {"kind", "TokenReview"},
                           {"metadata", {{"creationTimestamp", nullptr}}},
                           {"spec", {{"token", "sha256~secret"}}}}}
             .Text();
  // A server-side dry run stores nothing.
  Json dry = *engine::ParseJson(Line{.verb = "patch",
                                     .resource = "leases",
                                     .group = "coordination.k8s.io",
                                     .ns = "ns",
                                     .name = "lock",
                                     .code = 200,
                                     .second = 8,
                                     .response = lease}
                                    .Text());
  dry["requestURI"] =
      "/apis/coordination.k8s.io/v1/namespaces/ns/leases/"
      "lock?dryRun=All&fieldManager=kubectl-client-side-apply";
  dry["responseObject"]["metadata"]["resourceVersion"] = "9";
  log += engine::Dump(dry) + "\n";
  KindFilter all = Declared();
  all.all_kinds = true;
  auto r = Decode(log, all);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->events.size(), 2u);
  EXPECT_EQ(r->events[0].type, EventType::kAdded);
  EXPECT_EQ(r->events[1].type, EventType::kDeleted);
  EXPECT_EQ(r->events[1].object.kind, "Lease");
  EXPECT_EQ(Body(r->events[1])["kind"], "Lease");
  EXPECT_THAT(
      r->skipped,
      ::testing::UnorderedElementsAre(
          Pair("deletes of a resource whose kind the log never names", 1),
          Pair("answers without a resourceVersion (reviews and other objects that are never stored)", 1),
          Pair("dry runs (dryRun=All: nothing was stored)", 1)));
  // Without --all-kinds none of these is kept.
  auto declared = Decode(log);
  ASSERT_TRUE(declared.ok());
  EXPECT_TRUE(declared->events.empty());
}

TEST(AuditLog, SeveralApiserversMergeAndARequestCountsOnce) {
  std::string kube =
      Line{.verb = "update", .second = 3, .audit_id = "same", .response = Stream("ruby", "2")}.Text() +
      Line{.verb = "create", .second = 1, .response = Stream("ruby", "1")}.Text();
  std::string openshift =
      Line{.verb = "update", .second = 3, .audit_id = "same", .response = Stream("ruby", "2")}.Text() +
      Line{.verb = "update", .second = 2, .response = Stream("ruby", "3")}.Text();
  auto r = DecodeAuditLogs({{"kube.log", kube}, {"openshift.log", openshift}}, Declared());
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->events.size(), 3u);
  EXPECT_EQ(r->events[0].time_ns, At(1));
  EXPECT_EQ(r->events[1].time_ns, At(2));
  EXPECT_EQ(r->events[2].time_ns, At(3));
  EXPECT_THAT(r->skipped, ElementsAre(Pair(HasSubstr("repeated auditIDs"), 1)));
  // Errors name the file they are in.
  auto bad = DecodeAuditLogs({{"kube.log", kube}, {"openshift.log", "{\n"}}, Declared());
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("openshift.log: line 1: malformed JSON"));
}

}  // namespace
}  // namespace recon::adapters::importers
