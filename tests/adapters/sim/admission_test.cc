// What the simulated API server does to writes as a real one does: CRD
// kinds pruned, defaulted and validated through crd::Registry (the real CRDs
// built in), the status subresource only where a CRD declares it,
// resourceVersion required on updates where the real strategy requires it,
// and the built-in types' own checks in the real wording.
#include <gtest/gtest.h>

#include "adapters/sim/api.h"
#include "adapters/sim/builtin_rules.h"

namespace recon::sim {
namespace {

using engine::Json;

constexpr int64_t kT0 = 1'800'000'000'000'000'000;

Json Subscription(const std::string& name) {
  return Json{{"apiVersion", "operators.coreos.com/v1alpha1"},
              {"kind", "Subscription"},
              {"metadata", {{"name", name}, {"namespace", "openshift-operators"}}},
              {"spec",
               {{"name", "etcd"},
                {"source", "community-operators"},
                {"sourceNamespace", "openshift-marketplace"},
                {"channel", "stable"}}}};
}

Json ConfigMap(const std::string& name, const std::string& ns, Json data) {
  Json o = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}, {"data", data}};
  if (!ns.empty()) o["metadata"]["namespace"] = ns;
  return o;
}

Json Widget(int size) {
  return Json{{"apiVersion", "test.recon.io/v1"},
              {"kind", "Widget"},
              {"metadata", {{"name", "w"}, {"namespace", "demo"}}},
              {"spec", {{"size", size}}}};
}

ApiOptions WithWidgets() {
  ApiOptions o = ApiOptions::Default();
  crd::Registry r = o.crds != nullptr ? *o.crds : crd::Registry();
  auto s = r.AddDir(RECON_SOURCE_DIR "/tests/adapters/sim/testdata/crds");
  EXPECT_TRUE(s.ok()) << s;
  o.crds = std::make_shared<const crd::Registry>(std::move(r));
  return o;
}

class AdmissionTest : public ::testing::Test {
 protected:
  const Json* Get(const std::string& group, const std::string& kind, const std::string& ns,
                  const std::string& name) {
    return objects_.Get(ObjectKey{group, kind, ns, name});
  }
  const Json& Sub(const std::string& name = "etcd") {
    return *Get("operators.coreos.com", "Subscription", "openshift-operators", name);
  }
  ObjectStore objects_{7};
  Api api_{objects_, WithWidgets()};
};

TEST_F(AdmissionTest, TheRealCrdsAreBuiltIn) {
  ASSERT_NE(api_.options().crds, nullptr);
  const crd::Kind* k = api_.options().crds->Find("operators.coreos.com", "v1alpha1", "Subscription");
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(k->status_subresource);
  EXPECT_EQ(k->plural, "subscriptions");
}

TEST_F(AdmissionTest, AnInvalidCustomResourceIs422WithCauses) {
  Json sub = Subscription("etcd");
  sub.erase("spec");
  ApiResult r = api_.Create(sub, kT0);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.error, "Invalid: Subscription.operators.coreos.com \"etcd\" is invalid: spec: Required value");
  ASSERT_EQ(r.causes.size(), 1u);
  EXPECT_EQ(r.causes[0].reason, "FieldValueRequired");
  EXPECT_EQ(r.causes[0].field, "spec");
  EXPECT_EQ(r.causes[0].message, "Required value");
  EXPECT_EQ(r.details_group, "operators.coreos.com");
  EXPECT_EQ(r.details_kind, "Subscription");
  EXPECT_TRUE(r.events.empty());
  EXPECT_EQ(objects_.resource_version(), 0u);  // nothing written
  // Nested required fields are named by their path.
  sub = Subscription("etcd");
  sub["spec"].erase("source");
  r = api_.Create(sub, kT0);
  ASSERT_EQ(r.status, 422);
  ASSERT_EQ(r.causes.size(), 1u);
  EXPECT_EQ(r.causes[0].field, "spec.source");
}

TEST_F(AdmissionTest, UndeclaredFieldsArePruned) {
  Json sub = Subscription("etcd");
  sub["spec"]["bogus"] = "x";
  sub["extra"] = 1;
  ASSERT_TRUE(api_.Create(sub, kT0).ok);
  EXPECT_FALSE(Sub()["spec"].contains("bogus"));
  EXPECT_FALSE(Sub().contains("extra"));
  EXPECT_EQ(Sub()["spec"]["name"], "etcd");
}

TEST_F(AdmissionTest, ValidationOffAcceptsWhatTheSchemaRefuses) {
  ApiOptions o = ApiOptions::Default();
  o.validate = false;
  ObjectStore objects;
  Api api(objects, o);
  Json sub = Subscription("etcd");
  sub.erase("spec");
  EXPECT_TRUE(api.Create(sub, kT0).ok);
  // The status subresource and resourceVersion rules still hold.
  Json next = *objects.Get(ObjectKey{"operators.coreos.com", "Subscription", "openshift-operators", "etcd"});
  next["metadata"].erase("resourceVersion");
  EXPECT_EQ(api.Update(next, kT0).status, 422);
}

TEST_F(AdmissionTest, StatusSubresourceSemantics) {
  Json sub = Subscription("etcd");
  sub["status"] = {{"state", "AtLatestKnown"}};
  ASSERT_TRUE(api_.Create(sub, kT0).ok);
  EXPECT_FALSE(Sub().contains("status")) << "create ignores status";
  // updateStatus ignores everything but status; generation stays.
  Json st = Sub();
  st["spec"]["channel"] = "alpha";
  st["metadata"]["labels"] = {{"a", "b"}};
  st["status"] = {{"state", "UpgradePending"}, {"lastUpdated", "2027-01-15T08:00:00Z"}};
  ApiResult r = api_.UpdateStatus(st, kT0);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(Sub()["status"]["state"], "UpgradePending");
  EXPECT_EQ(Sub()["spec"]["channel"], "stable");
  EXPECT_FALSE(Sub()["metadata"].contains("labels"));
  EXPECT_EQ(Sub()["metadata"]["generation"], 1);
  // The main resource ignores status; a spec change bumps generation, a
  // metadata-only change does not.
  Json up = Sub();
  up["status"]["state"] = "Hacked";
  up["metadata"]["labels"] = {{"a", "b"}};
  ASSERT_TRUE(api_.Update(up, kT0).ok);
  EXPECT_EQ(Sub()["status"]["state"], "UpgradePending");
  EXPECT_EQ(Sub()["metadata"]["labels"]["a"], "b");
  EXPECT_EQ(Sub()["metadata"]["generation"], 1);
  up = Sub();
  up["spec"]["channel"] = "alpha";
  ASSERT_TRUE(api_.Update(up, kT0).ok);
  EXPECT_EQ(Sub()["metadata"]["generation"], 2);
}

TEST_F(AdmissionTest, WithoutAStatusSubresourceStatusIsAnOrdinaryField) {
  Json w = Widget(3);
  w["status"] = {{"phase", "New"}};
  ASSERT_TRUE(api_.Create(w, kT0).ok);
  const Json* got = Get("test.recon.io", "Widget", "demo", "w");
  ASSERT_NE(got, nullptr);
  EXPECT_EQ((*got)["status"]["phase"], "New") << "create keeps status";
  Json up = *got;
  up["status"]["phase"] = "Ready";
  ASSERT_TRUE(api_.Update(up, kT0).ok);
  got = Get("test.recon.io", "Widget", "demo", "w");
  EXPECT_EQ((*got)["status"]["phase"], "Ready");
  EXPECT_EQ((*got)["metadata"]["generation"], 2) << "status is spec here: it moves generation";
  ApiResult r = api_.UpdateStatus(*got, kT0);
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.error, "NotFound: the server could not find the requested resource");
  // The schema holds for this CRD too.
  Json bad = Widget(0);
  bad["metadata"]["name"] = "w2";
  r = api_.Create(bad, kT0);
  EXPECT_EQ(r.status, 422);
  ASSERT_EQ(r.causes.size(), 1u);
  EXPECT_EQ(r.causes[0].field, "spec.size");
}

TEST_F(AdmissionTest, ACustomResourceUpdateNeedsAResourceVersion) {
  ASSERT_TRUE(api_.Create(Subscription("etcd"), kT0).ok);
  for (bool status : {false, true}) {
    Json up = Sub();
    up["metadata"].erase("resourceVersion");
    up["spec"]["channel"] = "alpha";
    ApiResult r = status ? api_.UpdateStatus(up, kT0) : api_.Update(up, kT0);
    EXPECT_EQ(r.status, 422);
    EXPECT_EQ(r.error,
              "Invalid: subscriptions.operators.coreos.com \"etcd\" is invalid: metadata.resourceVersion: "
              "Invalid value: 0x0: must be specified for an update");
    EXPECT_EQ(r.details_kind, "subscriptions");
    EXPECT_EQ(r.details_group, "operators.coreos.com");
    ASSERT_EQ(r.causes.size(), 1u);
    EXPECT_EQ(r.causes[0].reason, "FieldValueInvalid");
    EXPECT_EQ(r.causes[0].field, "metadata.resourceVersion");
    EXPECT_EQ(r.causes[0].message, "Invalid value: 0x0: must be specified for an update");
  }
}

TEST_F(AdmissionTest, BuiltinsUpdateUnconditionallyOpenShiftTypesDoNot) {
  ASSERT_TRUE(api_.Create(ConfigMap("c", "demo", {{"k", "v"}}), kT0).ok);
  Json up = ConfigMap("c", "demo", {{"k", "w"}});
  EXPECT_TRUE(api_.Update(up, kT0).ok) << "ConfigMap allows unconditional updates";
  Json is = {{"apiVersion", "image.openshift.io/v1"},
             {"kind", "ImageStream"},
             {"metadata", {{"name", "ruby"}, {"namespace", "openshift"}}},
             {"spec", Json::object()}};
  ASSERT_TRUE(api_.Create(is, kT0).ok);
  is["spec"]["lookupPolicy"] = {{"local", true}};
  ApiResult r = api_.Update(is, kT0);
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.error,
            "Invalid: imagestreams.image.openshift.io \"ruby\" is invalid: metadata.resourceVersion: Invalid "
            "value: 0x0: must be specified for an update");
}

struct BuiltinCase {
  const char* name;
  Json object;
  int status;
  std::string error;
};

class BuiltinChecksTest : public ::testing::TestWithParam<int> {};

std::vector<BuiltinCase> BuiltinCases() {
  return {
      {"subdomain", ConfigMap("Bad_Name", "demo", Json::object()), 422,
       "Invalid: ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a lowercase "
       "RFC "
       "1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and "
       "end "
       "with an alphanumeric character (e.g. 'example.com', regex used for validation is "
       "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
      {"namespace label", Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "a.b"}}}},
       422,
       "Invalid: Namespace \"a.b\" is invalid: metadata.name: Invalid value: \"a.b\": a lowercase RFC 1123 "
       "label must consist of lower case alphanumeric characters or '-', and must start and end with an "
       "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
       "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"},
      {"namespace required", ConfigMap("c", "", Json::object()), 422,
       "Invalid: ConfigMap \"c\" is invalid: metadata.namespace: Required value"},
      {"namespace forbidden",
       Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "x"}, {"namespace", "y"}}}},
       422, "Invalid: Namespace \"x\" is invalid: metadata.namespace: Forbidden: not allowed on this type"},
      {"config key", ConfigMap("c", "demo", {{"a b", "v"}}), 422,
       "Invalid: ConfigMap \"c\" is invalid: data[a b]: Invalid value: \"a b\": a valid config key must "
       "consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or "
       "'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"},
      {"configmap value not a string", ConfigMap("c", "demo", {{"k", 1}}), 400,
       "BadRequest: ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal "
       "number into Go struct field ConfigMap.data of type string"},
      {"secret not base64",
       Json{{"apiVersion", "v1"},
            {"kind", "Secret"},
            {"metadata", {{"name", "s"}, {"namespace", "demo"}}},
            {"data", {{"k", "no*base64"}}}},
       400,
       "BadRequest: Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data at input "
       "byte "
       "2"},
      {"name required",
       Json{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"namespace", "demo"}}}}, 422,
       "Invalid: ConfigMap \"\" is invalid: metadata.name: Required value: name or generateName is required"},
      {"cluster-scoped CRD kind with a namespace",
       Json{{"apiVersion", "config.openshift.io/v1"},
            {"kind", "ClusterOperator"},
            {"metadata", {{"name", "openshift-samples"}, {"namespace", "x"}}},
            {"spec", Json::object()}},
       422,
       "Invalid: ClusterOperator.config.openshift.io \"openshift-samples\" is invalid: metadata.namespace: "
       "Forbidden: not allowed on this type"},
  };
}

TEST_P(BuiltinChecksTest, RealWording) {
  BuiltinCase c = BuiltinCases()[GetParam()];
  ObjectStore objects;
  Api api(objects);
  ApiResult r = api.Create(c.object, kT0);
  EXPECT_EQ(r.status, c.status) << c.name << ": " << r.error;
  EXPECT_EQ(r.error, c.error) << c.name;
  EXPECT_TRUE(objects.objects().empty()) << c.name;
}

INSTANTIATE_TEST_SUITE_P(Cases, BuiltinChecksTest,
                         ::testing::Range(0, static_cast<int>(BuiltinCases().size())));

TEST(BuiltinRulesTest, SecretStringDataIsMergedIntoData) {
  ObjectStore objects;
  Api api(objects);
  Json s = {{"apiVersion", "v1"},
            {"kind", "Secret"},
            {"metadata", {{"name", "s"}, {"namespace", "demo"}}},
            {"data", {{"a", "eA=="}, {"b", "eQ=="}}},
            {"stringData", {{"b", "p@ss"}}}};
  ASSERT_TRUE(api.Create(s, kT0).ok);
  const Json& got = *objects.Get(ObjectKey{"", "Secret", "demo", "s"});
  EXPECT_FALSE(got.contains("stringData"));
  EXPECT_EQ(got["data"]["a"], "eA==");
  EXPECT_EQ(got["data"]["b"], "cEBzcw==");
}

TEST(BuiltinRulesTest, Dns1123) {
  EXPECT_TRUE(IsDns1123Subdomain("a.b-c.d").empty());
  EXPECT_FALSE(IsDns1123Subdomain("a..b").empty());
  EXPECT_FALSE(IsDns1123Subdomain("-a").empty());
  EXPECT_EQ(IsDns1123Subdomain(std::string(254, 'a')).front(), "must be no more than 253 characters");
  EXPECT_TRUE(IsDns1123Label("abc-1").empty());
  EXPECT_FALSE(IsDns1123Label("a.b").empty());
  EXPECT_EQ(IsDns1123Label(std::string(64, 'a')).front(), "must be no more than 63 characters");
}

}  // namespace
}  // namespace recon::sim
