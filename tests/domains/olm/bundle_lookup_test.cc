#include "domains/olm/install/bundle_lookup.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/json.h"
#include "engine/time_format.h"

namespace recon::olm {
namespace {

using engine::Json;

Json J(const char* text) { return Json::parse(text); }

constexpr int64_t kT0 = 1'780'000'000'000'000'000;
constexpr char kPath[] = "quay.io/example/bundle:v1";

Json Lookup() {
  return NewBundleLookup(kPath, "foo.v1", "foo.v0", "community", "olm",
                         J(R"([{"type":"olm.package","value":{"packageName":"foo","version":"1.0.0"}}])"));
}

std::vector<std::string> CondTypes(const Json& lookup) {
  std::vector<std::string> out;
  if (!lookup.contains("conditions")) return out;
  for (const Json& c : lookup["conditions"]) out.push_back(engine::GetString(c, {"type"}) + "/" + engine::GetString(c, {"reason"}));
  return out;
}

TEST(BundleLookup, ANewLookupIsNotPersistedAndPendingWithoutTimestamps) {
  Json l = Lookup();
  EXPECT_EQ(l["path"], kPath);
  EXPECT_EQ(l["identifier"], "foo.v1");
  EXPECT_EQ(l["replaces"], "foo.v0");
  EXPECT_EQ(engine::Dump(l["catalogSourceRef"]), R"({"namespace":"olm","name":"community"})");
  EXPECT_EQ(l["properties"], R"({"properties":[{"type":"olm.package","value":{"packageName":"foo","version":"1.0.0"}}]})");
  EXPECT_EQ(CondTypes(l), (std::vector<std::string>{"BundleLookupNotPersisted/BundleNotUnpacked",
                                                    "BundleLookupPending/JobNotStarted"}));
  EXPECT_EQ(l["conditions"][1]["message"], "unpack job not yet started");
  EXPECT_FALSE(l["conditions"][0].contains("lastTransitionTime"));
  EXPECT_EQ(NewBundleLookup(kPath, "foo.v1", "", "c", "olm", Json::array())["properties"], "{}");
}

TEST(BundleLookup, UnpackObjectsAreNamedByTheImagesHashInTheCatalogsNamespace) {
  EXPECT_EQ(UnpackName(kPath), "336fa0de0c610ca6a57e0d1bcad34e0d5010bd03233825c68ee5656f662d6e2");
  Json catalog = J(R"({"metadata":{"name":"community","namespace":"olm","uid":"cs-1"},"spec":{"secrets":["pull-a"]}})");
  Json cm = UnpackConfigMap(kPath, catalog);
  EXPECT_EQ(cm["metadata"]["namespace"], "olm");
  EXPECT_EQ(cm["metadata"]["labels"]["olm.managed"], "true");
  EXPECT_EQ(cm["metadata"]["ownerReferences"][0]["uid"], "cs-1");
  Json role = UnpackRole(kPath, "olm", "cm-1");
  EXPECT_EQ(role["rules"][0]["resourceNames"][0], UnpackName(kPath));
  EXPECT_EQ(UnpackRoleBinding(kPath, "olm", "cm-1")["subjects"][0]["name"], "default");
  UnpackOptions opts;
  Json job = UnpackJob(kPath, catalog, "cm-1", opts, opts.timeout_ns);
  EXPECT_EQ(job["spec"]["activeDeadlineSeconds"], 600);
  EXPECT_EQ(job["spec"]["backoffLimit"], 3);
  EXPECT_EQ(job["metadata"]["ownerReferences"][0]["kind"], "ConfigMap");
  const Json& pod = job["spec"]["template"]["spec"];
  EXPECT_EQ(pod["imagePullSecrets"][0]["name"], "pull-a");
  EXPECT_EQ(pod["initContainers"][1]["image"], kPath);
  EXPECT_EQ(pod["initContainers"][1]["imagePullPolicy"], "Always");
  EXPECT_EQ(engine::Dump(pod["containers"][0]["command"]),
            R"(["opm","alpha","bundle","extract","-m","/bundle/","-n","olm","-c",")" + UnpackName(kPath) + R"(","-z"])");
  EXPECT_FALSE(UnpackJob(kPath, catalog, "cm-1", opts, 0)["spec"].contains("activeDeadlineSeconds"));
  EXPECT_EQ(UnpackJob("quay.io/x@sha256:abc", catalog, "", opts, 0)["spec"]["template"]["spec"]["initContainers"][1]
                     ["imagePullPolicy"],
            "IfNotPresent");
}

TEST(BundleLookup, APlanAnnotationOverridesTheUnpackTimeoutWhenItIsADuration) {
  const int64_t def = 600'000'000'000;
  auto with = [](const char* v) {
    Json ip = J(R"({"metadata":{"annotations":{}}})");
    ip["metadata"]["annotations"]["operatorframework.io/bundle-unpack-timeout"] = v;
    return ip;
  };
  EXPECT_EQ(UnpackTimeout(J("{}"), def), def);
  EXPECT_EQ(UnpackTimeout(with("5m"), def), 300'000'000'000);
  EXPECT_EQ(UnpackTimeout(with("0s"), def), 0);
  EXPECT_EQ(UnpackTimeout(with("soon"), def), def);
}

TEST(BundleLookup, TheConfigMapIsReadPlainOrGzippedInKeyOrder) {
  Json plain = J(R"({"data":{"z.crd.yaml":"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: z\n",
                              "a.csv.json":"{\"apiVersion\":\"operators.coreos.com/v1alpha1\",\"kind\":\"ClusterServiceVersion\",\"metadata\":{\"name\":\"foo.v1\"}}",
                              "notes.txt":"no kind here"}})");
  auto objects = LoadBundleConfigMap(plain);
  ASSERT_TRUE(objects.ok()) << objects.status();
  ASSERT_EQ(objects->size(), 2u);
  EXPECT_EQ((*objects)[0]["kind"], "ClusterServiceVersion");
  EXPECT_EQ((*objects)[1]["metadata"]["name"], "z");
  // opm -z: gzip, then base64, stored as binaryData (base64 again on the wire).
  Json gz = J(R"({"metadata":{"annotations":{"olm.contentEncoding":"gzip+base64"}},"data":{"ignored":"x"},"binaryData":{
    "foo.crd.yaml":"SDRzSUFBQUFBQUFDQXhYS3NRMkRRQXdGMFA2bThBU0gwcUZya3drbzBsdndrU3hpKzRRTllueEkrYVRIWGI3WVE5d2FjUmRjQ2ZzcjZqWkdGUi9PVjluRWxrYnZJOUoxUXZpeHovaGdGWk44WmxFa0w1emNDcEd4b3RIcUhoVVhhLytoenE3bEJrTE05NlptQUFBQQ=="}})");
  auto unzipped = LoadBundleConfigMap(gz);
  ASSERT_TRUE(unzipped.ok()) << unzipped.status();
  ASSERT_EQ(unzipped->size(), 1u);
  EXPECT_EQ((*unzipped)[0]["metadata"]["name"], "foos.example.com");
  gz["binaryData"]["foo.crd.yaml"] = "bm90IGd6aXA=";  // base64 of base64-free text
  EXPECT_EQ(LoadBundleConfigMap(gz).status().code(), absl::StatusCode::kDataLoss);
}

TEST(BundleLookup, TheLookupsConditionsFollowTheJob) {
  Json catalog = J(R"({"metadata":{"name":"community","namespace":"olm","uid":"cs-1"}})");
  Json l = Lookup();
  // The catalog gone: Pending says so once, then the sync fails.
  LookupAdvance gone = AdvanceLookup(l, UnpackView{}, kT0);
  EXPECT_EQ(CondTypes(gone.lookup)[1], "BundleLookupPending/CatalogSourceMissing");
  EXPECT_TRUE(gone.error.ok());
  EXPECT_EQ(AdvanceLookup(gone.lookup, UnpackView{}, kT0).error.message(),
            "catalogsource.operators.coreos.com \"community\" not found");
  // The Job running, its pull stuck.
  Json job = J(R"({"status":{}})");
  Json cm = J(R"({"data":{}})");
  Json pod = J(R"({"metadata":{"name":"p1","namespace":"olm"},"status":{"phase":"Pending","initContainerStatuses":[
    {"name":"util","ready":true},{"name":"pull","ready":false,"state":{"waiting":{"reason":"ErrImagePull","message":"not found"}}}]}})");
  UnpackView running{&catalog, &job, &cm, {&pod}};
  LookupAdvance wait = AdvanceLookup(l, running, kT0);
  EXPECT_EQ(wait.lookup["conditions"][1]["message"],
            "unpack job not completed: Unpack pod(olm/p1) container(pull) is pending. Reason: ErrImagePull, Message: not found");
  EXPECT_FALSE(wait.objects.has_value());
  // Complete but the ConfigMap still empty: unchanged.
  job = J(R"({"status":{"conditions":[{"type":"Complete","status":"True"}]}})");
  LookupAdvance empty = AdvanceLookup(wait.lookup, running, kT0);
  EXPECT_EQ(engine::Dump(empty.lookup), engine::Dump(wait.lookup));
  // Complete and filled: Pending goes, the manifests come back.
  cm = J(R"({"data":{"csv.json":"{\"apiVersion\":\"operators.coreos.com/v1alpha1\",\"kind\":\"ClusterServiceVersion\",\"metadata\":{\"name\":\"foo.v1\"}}"}})");
  LookupAdvance done = AdvanceLookup(wait.lookup, running, kT0);
  ASSERT_TRUE(done.objects.has_value());
  EXPECT_EQ(CondTypes(done.lookup), std::vector<std::string>{"BundleLookupNotPersisted/BundleNotUnpacked"});
  auto content = LookupContent(done.lookup, *done.objects);
  ASSERT_TRUE(content.ok()) << content.status();
  EXPECT_EQ(content->csv["metadata"]["name"], "foo.v1");
  EXPECT_EQ(content->replaces, "foo.v0");
  EXPECT_EQ(content->catalog, "community");
  EXPECT_EQ(content->properties[0]["type"], "olm.package");
  EXPECT_EQ(LookupContent(done.lookup, {}).status().message(), "unexpected end of JSON input");
  // A failed Job: BundleLookupFailed with its reason and message.
  job = J(R"({"status":{"conditions":[{"type":"Failed","status":"True","reason":"DeadlineExceeded","message":"Job was active longer than specified deadline"}]}})");
  LookupAdvance failed = AdvanceLookup(l, running, kT0);
  EXPECT_TRUE(failed.failed);
  EXPECT_EQ(CondTypes(failed.lookup).back(), "BundleLookupFailed/DeadlineExceeded");
  EXPECT_TRUE(AdvanceLookup(failed.lookup, running, kT0).failed);  // and stays failed
  // Unpacked and persisted (no conditions left): left exactly as it is.
  Json persisted = done.lookup;
  persisted.erase("conditions");
  EXPECT_EQ(engine::Dump(AdvanceLookup(persisted, running, kT0).lookup), engine::Dump(persisted));
}

}  // namespace
}  // namespace recon::olm
