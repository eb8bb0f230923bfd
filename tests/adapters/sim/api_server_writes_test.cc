// Writes over HTTP: CRUD and its 409s, patches, the status subresource,
// managed fields, finalizers and preconditions, body checks (415, protobuf).
#include <gtest/gtest.h>

#include <map>

#include "absl/strings/escaping.h"
#include "tests/adapters/sim/api_server_test_util.h"

namespace recon::sim::http_testing {
namespace {

TEST_F(ApiServerTest, CrudAndConflicts) {
  Resp created = CreateCm("a");
  ASSERT_EQ(created.status, 201) << created.body;
  Json cm = created.json();
  EXPECT_FALSE(cm["metadata"]["uid"].get<std::string>().empty());
  std::string rv = cm["metadata"]["resourceVersion"];
  Resp again = CreateCm("a");
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(again.json()["kind"], "Status");
  EXPECT_EQ(again.json()["reason"], "AlreadyExists");
  EXPECT_EQ(again.json()["details"]["name"], "a");

  Resp got = Do("GET", CmUrl("a"));
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(got.json()["data"]["k"], "v");

  Json edit = cm;
  edit["data"]["k"] = "w";
  Resp put = Do("PUT", CmUrl("a"), engine::Dump(edit));
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_NE(put.json()["metadata"]["resourceVersion"], rv);
  // The same resourceVersion again is stale now.
  edit["data"]["k"] = "x";
  Resp stale = Do("PUT", CmUrl("a"), engine::Dump(edit));
  EXPECT_EQ(stale.status, 409);
  EXPECT_EQ(stale.json()["reason"], "Conflict");
  // The URL names the object: a body naming another is refused.
  Json other = put.json();
  other["metadata"]["name"] = "b";
  EXPECT_EQ(Do("PUT", CmUrl("a"), engine::Dump(other)).status, 400);

  Resp del = Do("DELETE", CmUrl("a"));
  EXPECT_EQ(del.status, 200);
  Resp gone = Do("GET", CmUrl("a"));
  EXPECT_EQ(gone.status, 404);
  EXPECT_EQ(gone.json()["reason"], "NotFound");
  EXPECT_EQ(gone.json()["code"], 404);
  EXPECT_EQ(Do("DELETE", CmUrl("a")).status, 404);
  EXPECT_EQ(Do("POST", CmUrl(), "{not json").status, 400);
}

// A plan's CRD step (recon carrying out an InstallPlan against `recon sim
// serve`) creates and updates CRDs, and the status subresource takes what
// kube-apiserver's CRD controller writes.
TEST_F(ApiServerTest, CrdsAreWrittenAsOtherObjects) {
  const std::string url = U("/apis/apiextensions.k8s.io/v1/customresourcedefinitions");
  Json crd = {
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "CustomResourceDefinition"},
      {"metadata", {{"name", "widgets.example.com"}}},
      {"spec",
       {{"group", "example.com"},
        {"names",
         {{"kind", "Widget"}, {"listKind", "WidgetList"}, {"plural", "widgets"}, {"singular", "widget"}}},
        {"scope", "Namespaced"},
        {"versions", Json::array({Json{{"name", "v1"},
                                       {"served", true},
                                       {"storage", true},
                                       {"schema", {{"openAPIV3Schema", {{"type", "object"}}}}}}})}}}};
  Resp created = Do("POST", url, engine::Dump(crd));
  ASSERT_EQ(created.status, 201) << created.body;
  Json st = created.json();
  st["status"] = {{"storedVersions", Json::array({"v1"})}};
  Resp status = Do("PUT", url + "/widgets.example.com/status", engine::Dump(st));
  ASSERT_EQ(status.status, 200) << status.body;
  EXPECT_EQ(status.json()["status"]["storedVersions"], Json::array({"v1"}));
  EXPECT_EQ(Do("DELETE", url + "/widgets.example.com").status, 200);
}

TEST_F(ApiServerTest, PatchKinds) {
  ASSERT_EQ(CreateCm("p").status, 201);
  Resp merge = Do("PATCH", CmUrl("p"), R"({"data":{"k":null,"m":"1"}})", "application/merge-patch+json");
  ASSERT_EQ(merge.status, 200) << merge.body;
  EXPECT_FALSE(merge.json()["data"].contains("k"));
  EXPECT_EQ(merge.json()["data"]["m"], "1");
  Resp jp = Do("PATCH", CmUrl("p"), R"([{"op":"add","path":"/data/j","value":"2"}])",
               "application/json-patch+json");
  ASSERT_EQ(jp.status, 200) << jp.body;
  EXPECT_EQ(jp.json()["data"]["j"], "2");
  Resp smp = Do("PATCH", CmUrl("p"), R"({"metadata":{"labels":{"x":"y"}}})",
                "application/strategic-merge-patch+json");
  ASSERT_EQ(smp.status, 200);
  EXPECT_EQ(smp.json()["metadata"]["labels"]["x"], "y");
  EXPECT_EQ(smp.json()["data"]["m"], "1");
  Resp failed_test = Do("PATCH", CmUrl("p"), R"([{"op":"test","path":"/data/m","value":"nope"}])",
                        "application/json-patch+json");
  EXPECT_EQ(failed_test.status, 422);
  EXPECT_EQ(Do("PATCH", CmUrl("p"), "{}", "application/apply-patch+yaml").status, 415);
  // A resourceVersion in a patch is a precondition.
  Resp stale = Do("PATCH", CmUrl("p"), R"({"metadata":{"resourceVersion":"1"},"data":{"z":"1"}})",
                  "application/merge-patch+json");
  EXPECT_EQ(stale.status, 409);
  EXPECT_EQ(Do("PATCH", CmUrl("missing"), "{}", "application/merge-patch+json").status, 404);
}

TEST_F(ApiServerTest, StatusSubresource) {
  std::string url = U("/apis/samples.operator.openshift.io/v1/configs/cluster");
  Json config = Do("GET", url).json();
  ASSERT_EQ(config["spec"]["managementState"], "Managed");
  int64_t generation = config["metadata"]["generation"];
  // The main resource ignores status; spec changes bump generation.
  Json edit = config;
  edit["spec"]["managementState"] = "Removed";
  edit["status"]["managementState"] = "Hacked";
  Json after = Do("PUT", url, engine::Dump(edit)).json();
  EXPECT_EQ(after["spec"]["managementState"], "Removed");
  EXPECT_EQ(after["status"]["managementState"], "Managed");
  EXPECT_EQ(after["metadata"]["generation"], generation + 1);
  // The status subresource changes status only, never generation.
  Json st = after;
  st["spec"]["managementState"] = "Managed";
  st["status"]["managementState"] = "Removed";
  Resp put = Do("PUT", url + "/status", engine::Dump(st));
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(put.json()["status"]["managementState"], "Removed");
  EXPECT_EQ(put.json()["spec"]["managementState"], "Removed");
  EXPECT_EQ(put.json()["metadata"]["generation"], generation + 1);
  Resp patch =
      Do("PATCH", url + "/status", R"({"status":{"version":"4.16.0"}})", "application/merge-patch+json");
  ASSERT_EQ(patch.status, 200);
  EXPECT_EQ(patch.json()["status"]["version"], "4.16.0");
  EXPECT_EQ(Do("GET", url + "/status").json()["status"]["version"], "4.16.0");
  // ConfigMaps have no status subresource.
  ASSERT_EQ(CreateCm("s").status, 201);
  EXPECT_EQ(Do("GET", CmUrl("s") + "/status").status, 404);
}

// metadata.managedFields over HTTP (managed_fields.h): the manager from
// fieldManager or the User-Agent, a /status entry of its own, a CRD's
// entries kept through admission, the time from the virtual clock.
TEST_F(ApiServerTest, WritesRecordTheirFieldManager) {
  Resp created =
      Do("POST", CmUrl() + "?fieldManager=creator", R"({"metadata":{"name":"mf"},"data":{"a":"1"}})");
  ASSERT_EQ(created.status, 201) << created.body;
  Json entry = created.json()["metadata"]["managedFields"][0];
  EXPECT_EQ(entry["manager"], "creator");
  EXPECT_EQ(entry["operation"], "Update");
  EXPECT_EQ(entry["apiVersion"], "v1");
  EXPECT_EQ(entry["fieldsType"], "FieldsV1");
  EXPECT_EQ(engine::Dump(entry["fieldsV1"]), R"({"f:data":{".":{},"f:a":{}}})");
  EXPECT_EQ(engine::GetString(entry, {"time"}).substr(0, 11), "2026-11-21T")
      << "the scenario's virtual clock";
  // No fieldManager: the User-Agent's product name.
  Resp patched = Do("PATCH", CmUrl("mf"), R"({"data":{"b":"2"}})", "application/merge-patch+json",
                    "User-Agent: kubectl/v1.32.0 (linux/amd64) kubernetes/abc");
  ASSERT_EQ(patched.status, 200) << patched.body;
  Json mf = patched.json()["metadata"]["managedFields"];
  ASSERT_EQ(mf.size(), 2u) << mf;
  EXPECT_EQ(mf[1]["manager"], "kubectl");
  EXPECT_EQ(engine::Dump(mf[1]["fieldsV1"]), R"({"f:data":{"f:b":{}}})");
  EXPECT_EQ(Do("GET", CmUrl("mf")).json()["metadata"]["managedFields"], mf);
  // A bad fieldManager is refused as the real server refuses it.
  Resp bad = Do("POST", CmUrl() + "?fieldManager=" + std::string(129, 'm'), R"({"metadata":{"name":"mf2"}})");
  EXPECT_EQ(bad.status, 422) << bad.body;
  EXPECT_NE(bad.body.find("CreateOptions.meta.k8s.io"), std::string::npos) << bad.body;

  // A CRD kind: spec by one manager, status by another under the subresource.
  std::string url = U("/apis/samples.operator.openshift.io/v1/configs/cluster");
  Json config = Do("GET", url).json();
  config["spec"]["managementState"] = "Removed";
  Resp spec = Do("PUT", url + "?fieldManager=admin", engine::Dump(config));
  ASSERT_EQ(spec.status, 200) << spec.body;
  Resp status = Do("PATCH", url + "/status?fieldManager=cluster-samples-operator",
                   R"({"status":{"managementState":"Removed"}})", "application/merge-patch+json");
  ASSERT_EQ(status.status, 200) << status.body;
  Json entries = status.json()["metadata"]["managedFields"];
  ASSERT_EQ(entries.size(), 2u) << entries;
  std::map<std::string, Json> by_manager;
  for (const Json& e : entries) by_manager[e["manager"]] = e;
  EXPECT_EQ(engine::Dump(by_manager["admin"]["fieldsV1"]), R"({"f:spec":{"f:managementState":{}}})");
  EXPECT_FALSE(by_manager["admin"].contains("subresource"));
  EXPECT_EQ(engine::Dump(by_manager["cluster-samples-operator"]["fieldsV1"]),
            R"({"f:status":{"f:managementState":{}}})");
  EXPECT_EQ(by_manager["cluster-samples-operator"]["subresource"], "status");
  EXPECT_EQ(Do("GET", url).json()["metadata"]["managedFields"], entries);
  // Writing the same again changes nothing: no new resourceVersion.
  std::string rv = engine::GetString(status.json(), {"metadata", "resourceVersion"});
  Resp again = Do("PATCH", url + "/status?fieldManager=cluster-samples-operator",
                  R"({"status":{"managementState":"Removed"}})", "application/merge-patch+json");
  EXPECT_EQ(engine::GetString(again.json(), {"metadata", "resourceVersion"}), rv);
}

TEST_F(ApiServerTest, FinalizersAndPreconditions) {
  ASSERT_EQ(CreateCm("f", {{"metadata", {{"finalizers", {"example.com/keep"}}}}}).status, 201);
  Json cm = Do("GET", CmUrl("f")).json();
  Resp wrong_uid = Do("DELETE", CmUrl("f"), R"({"preconditions":{"uid":"nope"}})");
  EXPECT_EQ(wrong_uid.status, 409);
  EXPECT_EQ(wrong_uid.json()["reason"], "Conflict");
  Resp wrong_rv = Do("DELETE", CmUrl("f"), R"({"preconditions":{"resourceVersion":"1"}})");
  EXPECT_EQ(wrong_rv.status, 409);
  Resp del =
      Do("DELETE", CmUrl("f"), engine::Dump(Json{{"preconditions", {{"uid", cm["metadata"]["uid"]}}}}));
  ASSERT_EQ(del.status, 200) << del.body;
  EXPECT_FALSE(del.json()["metadata"]["deletionTimestamp"].get<std::string>().empty());
  Resp still = Do("GET", CmUrl("f"));
  ASSERT_EQ(still.status, 200);
  EXPECT_TRUE(still.json()["metadata"].contains("deletionTimestamp"));
  Resp release =
      Do("PATCH", CmUrl("f"), R"({"metadata":{"finalizers":null}})", "application/merge-patch+json");
  EXPECT_EQ(release.status, 200) << release.body;
  EXPECT_EQ(Do("GET", CmUrl("f")).status, 404);
}

// PUT without a resourceVersion: refused for a CRD kind, unconditional for
// a ConfigMap.
TEST_F(ApiServerTest, UpdateWithoutResourceVersion) {
  std::string url = U("/apis/samples.operator.openshift.io/v1/configs/cluster");
  Json config = Do("GET", url).json();
  config["metadata"].erase("resourceVersion");
  config["spec"]["managementState"] = "Removed";
  Resp r = Do("PUT", url, engine::Dump(config));
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(r.json()["message"],
            "configs.samples.operator.openshift.io \"cluster\" is invalid: metadata.resourceVersion: Invalid "
            "value: 0x0: must be specified for an update");
  EXPECT_EQ(r.json()["details"]["kind"], "configs");
  EXPECT_EQ(r.json()["details"]["group"], "samples.operator.openshift.io");
  EXPECT_EQ(Do("PUT", url + "/status", engine::Dump(config)).status, 422);
  ASSERT_EQ(CreateCm("u").status, 201);
  Json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata", {{"name", "u"}, {"namespace", "demo"}}},
             {"data", {{"k", "w"}}}};
  EXPECT_EQ(Do("PUT", CmUrl("u"), engine::Dump(cm)).status, 200);
}

TEST_F(ApiServerTest, UndecodableBodyIs415) {
  Resp r = Do("POST", CmUrl(), "apiVersion: v1\nkind: ConfigMap\n", "text/plain");
  ASSERT_EQ(r.status, 415) << r.body;
  EXPECT_EQ(r.json(),
            (Json{{"kind", "Status"},
                  {"apiVersion", "v1"},
                  {"metadata", Json::object()},
                  {"status", "Failure"},
                  {"message",
                   "the body of the request was in an unknown format - accepted media types include: "
                   "application/json, application/yaml, application/vnd.kubernetes.protobuf"},
                  {"reason", "UnsupportedMediaType"},
                  {"code", 415}}));
  // A CRD has no protobuf form.
  r = Do("POST", U("/apis/operators.coreos.com/v1alpha1/namespaces/demo/subscriptions"),
         std::string("k8s\0", 4), "application/vnd.kubernetes.protobuf");
  ASSERT_EQ(r.status, 415) << r.body;
  EXPECT_EQ(
      r.json()["message"],
      "the body of the request was in an unknown format - accepted media types include: application/json, "
      "application/yaml");
}

// What `kubectl create configmap cm1 -n foo --from-literal=a=b
// --from-literal=greeting=hello` sends (kubectl 1.32, captured).
TEST_F(ApiServerTest, ProtobufCreateOfAConfigMap) {
  std::string body = absl::HexStringToBytes(
      "6b3873000a0f0a0276311209436f6e6669674d617012330a160a03636d3112001a03666f6f22002a0032003800420012"
      "060a016112016212110a086772656574696e67120568656c6c6f1a002200");
  Resp r = Do("POST", U("/api/v1/namespaces/foo/configmaps"), body, "application/vnd.kubernetes.protobuf");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.json()["data"]["greeting"], "hello");
  EXPECT_EQ(r.json()["metadata"]["namespace"], "foo");
  EXPECT_TRUE(server_->ObjectJson("", "ConfigMap", "foo", "cm1").has_value());
}

}  // namespace
}  // namespace recon::sim::http_testing
