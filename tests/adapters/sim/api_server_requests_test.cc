// Checks every request passes (the bearer token) and the Status of a
// refused write.
#include <gtest/gtest.h>

#include "tests/adapters/sim/api_server_test_util.h"

namespace recon::sim::http_testing {
namespace {

TEST_F(ApiServerTest, BearerToken) {
  server_.reset();
  ServeOptions opts;
  opts.token = "s3cret";
  StartServer(opts);
  Resp no = Do("GET", U("/api/v1/namespaces"));
  EXPECT_EQ(no.status, 401);
  EXPECT_EQ(no.json()["reason"], "Unauthorized");
  EXPECT_EQ(Do("GET", U("/api/v1/namespaces"), "", "application/json", "Authorization: Bearer wrong").status,
            401);
  EXPECT_EQ(Do("GET", U("/api/v1/namespaces"), "", "application/json", "Authorization: Bearer s3cret").status,
            200);
}

// A refused write is the real 422 Status: reason Invalid, the message, and
// details with the name, group, kind and one cause per field error.
TEST_F(ApiServerTest, InvalidIs422StatusWithCauses) {
  Json sub = {{"apiVersion", "operators.coreos.com/v1alpha1"},
              {"kind", "Subscription"},
              {"metadata", {{"name", "etcd"}}}};
  Resp r =
      Do("POST", U("/apis/operators.coreos.com/v1alpha1/namespaces/demo/subscriptions"), engine::Dump(sub));
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(
      r.json(),
      (Json{{"kind", "Status"},
            {"apiVersion", "v1"},
            {"metadata", Json::object()},
            {"status", "Failure"},
            {"message", "Subscription.operators.coreos.com \"etcd\" is invalid: spec: Required value"},
            {"reason", "Invalid"},
            {"details",
             {{"name", "etcd"},
              {"group", "operators.coreos.com"},
              {"kind", "Subscription"},
              {"causes",
               {{{"reason", "FieldValueRequired"}, {"message", "Required value"}, {"field", "spec"}}}}}},
            {"code", 422}}));
  // A built-in type's name, in the real wording.
  r = CreateCm("Bad_Name");
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(r.json()["details"]["kind"], "ConfigMap");
  EXPECT_FALSE(r.json()["details"].contains("group"));
  EXPECT_EQ(r.json()["details"]["causes"][0]["field"], "metadata.name");
}

}  // namespace
}  // namespace recon::sim::http_testing
