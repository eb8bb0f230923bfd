// The simulated API server's non-resource endpoints: discovery, OpenAPI,
// /version and the probe endpoint.
#include <gtest/gtest.h>

#include "tests/adapters/sim/api_server_test_util.h"

namespace recon::sim::http_testing {
namespace {

TEST_F(ApiServerTest, Discovery) {
  Resp v = Do("GET", U("/version"));
  ASSERT_EQ(v.status, 200);
  EXPECT_EQ(v.json()["major"], "1");
  Resp api = Do("GET", U("/api"));
  EXPECT_EQ(api.json()["versions"][0], "v1");
  Resp apis = Do("GET", U("/apis"));
  ASSERT_EQ(apis.status, 200);
  bool samples = false, olm_versions = false;
  Json groups = apis.json()["groups"];
  for (const Json& g : groups) {
    if (g["name"] == "samples.operator.openshift.io") samples = true;
    if (g["name"] == "operators.coreos.com") {
      // The real CRDs serve v1alpha1, v1alpha2, v1 and v2 of the group; the
      // apiserver orders them by Kubernetes version priority and prefers v2.
      olm_versions = g["preferredVersion"]["version"] == "v2" && g["versions"].size() == 4 &&
                     g["versions"][0]["version"] == "v2" && g["versions"][1]["version"] == "v1" &&
                     g["versions"][2]["version"] == "v1alpha2" && g["versions"][3]["version"] == "v1alpha1";
    }
  }
  EXPECT_TRUE(samples);
  EXPECT_TRUE(olm_versions);
  Resp image = Do("GET", U("/apis/image.openshift.io/v1"));
  ASSERT_EQ(image.status, 200);
  bool streams = false, status_sub = false, isi_create_only = false;
  Json resources = image.json()["resources"];
  for (const Json& r : resources) {
    if (r["name"] == "imagestreams") {
      streams = r["namespaced"] == true && r["kind"] == "ImageStream" && r["shortNames"][0] == "is";
    }
    if (r["name"] == "imagestreams/status") status_sub = true;
    if (r["name"] == "imagestreamimports") isi_create_only = r["verbs"] == Json::array({"create"});
  }
  EXPECT_TRUE(streams);
  EXPECT_TRUE(status_sub);
  EXPECT_TRUE(isi_create_only);
  Resp core = Do("GET", U("/api/v1"));
  EXPECT_NE(core.body.find("\"configmaps\""), std::string::npos);
  EXPECT_EQ(core.body.find("\"leases\""), std::string::npos) << "leases are coordination.k8s.io, not core";
  Resp leases = Do("GET", U("/apis/coordination.k8s.io/v1"));
  EXPECT_NE(leases.body.find("\"leases\""), std::string::npos);
  EXPECT_EQ(Do("GET", U("/apis/nope.example.com/v1")).status, 404);
  // The minimal OpenAPI v3: a root naming each group-version, and per
  // group-version a PATCH operation per kind that takes fieldValidation.
  Json root = Do("GET", U("/openapi/v3")).json();
  ASSERT_TRUE(root["paths"].contains("apis/samples.operator.openshift.io/v1"));
  std::string gv_url = root["paths"]["api/v1"]["serverRelativeURL"];
  Json doc = Do("GET", U(gv_url)).json();
  const Json& cm_patch = doc["paths"]["/api/v1/namespaces/{namespace}/configmaps/{name}"]["patch"];
  EXPECT_EQ(cm_patch["x-kubernetes-group-version-kind"]["kind"], "ConfigMap");
  EXPECT_EQ(cm_patch["parameters"][0]["name"], "fieldValidation");
  EXPECT_EQ(Do("GET", U("/openapi/v2")).status, 404);
}

TEST_F(ApiServerTest, ProbeEndpoint) {
  Json down =
      Do("GET", U("/recon-sim/v1/probe?name=samples/registry&target=https%3A%2F%2Fregistry.redhat.io"))
          .json();
  EXPECT_EQ(down["ok"], false);
  EXPECT_EQ(down["detail"], "dial tcp: i/o timeout");
  Json sp = Do("GET", U("/recon-sim/v1/probe?name=aro/serviceprincipal")).json();
  EXPECT_EQ(sp["ok"], true);
  EXPECT_EQ(sp["status"], 200);
  EXPECT_EQ(sp["data"]["oid"], "1234");
  EXPECT_EQ(Do("GET", U("/recon-sim/v1/probe")).status, 400);
}

}  // namespace
}  // namespace recon::sim::http_testing
