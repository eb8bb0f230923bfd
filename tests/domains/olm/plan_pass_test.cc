#include "domains/olm/install/plan_pass.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "domains/olm/install/bundle_steps.h"
#include "engine/json.h"
#include "engine/time_format.h"

namespace recon::olm {
namespace {

using engine::Json;

Json J(const char* text) { return Json::parse(text); }

// The cluster as a map, and the plan's own creates as the reducer would
// track them.
class FakeView : public ClusterView {
 public:
  using Key = std::tuple<std::string, std::string, std::string, std::string>;
  std::map<Key, Json> objects;
  std::map<Key, OwnCreate> creates;
  std::map<std::string, bool> served;  // "group/version/Kind" -> namespaced

  void Put(Json o) {
    std::string api = engine::GetString(o, {"apiVersion"});
    std::string group = api.find('/') == std::string::npos ? "" : api.substr(0, api.find('/'));
    // The key first: Json's operator= takes its argument by value, and the
    // right operand is evaluated before the left.
    Key k{group, engine::GetString(o, {"kind"}), engine::GetString(o, {"metadata", "namespace"}),
          engine::GetString(o, {"metadata", "name"})};
    objects[k] = std::move(o);
  }
  // Every write of the pass lands: creates answered, objects shown with a uid.
  void Land(const PassResult& pass, bool show) {
    for (const PlanWrite& w : pass.writes) {
      Json o = w.object;
      std::string api = engine::GetString(o, {"apiVersion"});
      std::string group = api.find('/') == std::string::npos ? "" : api.substr(0, api.find('/'));
      Key k{group, engine::GetString(o, {"kind"}), engine::GetString(o, {"metadata", "namespace"}),
            engine::GetString(o, {"metadata", "name"})};
      if (w.verb == "create") creates[k] = OwnCreate{OwnCreate::kLanded, ""};
      if (show) {
        o["metadata"]["uid"] = "uid-" + engine::GetString(o, {"metadata", "name"});
        o["metadata"]["resourceVersion"] = "7";
        objects[k] = o;
      }
    }
  }
  const Json* Get(std::string_view group, std::string_view kind, std::string_view ns,
                  std::string_view name) const override {
    auto it = objects.find(Key{group, kind, ns, name});
    return it == objects.end() ? nullptr : &it->second;
  }
  std::vector<const Json*> List(std::string_view group, std::string_view kind, std::string_view ns) const override {
    std::vector<const Json*> out;
    for (const auto& [k, o] : objects)
      if (std::get<0>(k) == group && std::get<1>(k) == kind && std::get<2>(k) == ns) out.push_back(&o);
    return out;
  }
  OwnCreate CreateOf(std::string_view group, std::string_view kind, std::string_view ns,
                     std::string_view name) const override {
    auto it = creates.find(Key{group, kind, ns, name});
    return it == creates.end() ? OwnCreate{} : it->second;
  }
  std::optional<bool> Namespaced(std::string_view group, std::string_view version,
                                 std::string_view kind) const override {
    auto it = served.find(std::string(group) + "/" + std::string(version) + "/" + std::string(kind));
    if (it == served.end()) return std::nullopt;
    return it->second;
  }
};

std::vector<std::string> Statuses(const Json& plan) {
  std::vector<std::string> out;
  for (const Json& s : plan) out.push_back(engine::GetString(s, {"status"}));
  return out;
}

std::vector<std::string> Writes(const PassResult& pass) {
  std::vector<std::string> out;
  for (const PlanWrite& w : pass.writes)
    out.push_back(w.verb + " " + engine::GetString(w.object, {"kind"}) + " " +
                  std::to_string(w.step));
  return out;
}

// An InstallPlan of the etcd bundle: CSV, CRD, ServiceAccount, Role, RoleBinding.
Json EtcdPlan() {
  BundleContent b;
  b.csv = J(R"({"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion",
    "metadata":{"name":"etcd.v0.9.2"},"spec":{"customresourcedefinitions":{"owned":[{"name":"etcdclusters.etcd.database.coreos.com"}]},
    "install":{"strategy":"deployment","spec":{
      "permissions":[{"serviceAccountName":"etcd-operator","rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]}]}}}})");
  b.objects = {J(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":"etcdclusters.etcd.database.coreos.com"},"spec":{"versions":[{"name":"v1beta2"}]}})")};
  b.catalog = "operatorhubio";
  b.catalog_ns = "olm";
  auto steps = BundleSteps(b, "ns1");
  Json plan = Json::array();
  for (Json& s : OrderSteps(*steps)) plan.push_back(std::move(s));
  return Json{{"apiVersion", "operators.coreos.com/v1alpha1"},
              {"kind", "InstallPlan"},
              {"metadata", Json{{"name", "install-abcde"}, {"namespace", "ns1"}}},
              {"spec", Json{{"clusterServiceVersionNames", Json::array({"etcd.v0.9.2"})}, {"approved", true}}},
              {"status", Json{{"phase", "Installing"}, {"plan", plan}}}};
}

void Establish(FakeView& view, const char* name) {
  auto* crd = const_cast<Json*>(view.Get("apiextensions.k8s.io", "CustomResourceDefinition", "", name));
  ASSERT_NE(crd, nullptr);
  (*crd)["status"] = J(R"({"conditions":[{"type":"NamesAccepted","status":"True"},{"type":"Established","status":"True"}]})");
}

constexpr int64_t kT0 = 1'780'000'000'000'000'000;
constexpr int64_t kSecond = 1'000'000'000;

TEST(PlanPass, AFreshPlanIsCarriedOutOverPassesAsItsCreatesLand) {
  FakeView view;
  Json ip = EtcdPlan();
  // Pass 1: the CSV and the CRD are created; the ServiceAccount needs the
  // CSV's uid, which only its watch event brings.
  PassResult p1 = ExecutePass(ip, view);
  EXPECT_TRUE(p1.error.ok()) << p1.error;
  EXPECT_EQ(Writes(p1), (std::vector<std::string>{"create ClusterServiceVersion 0", "create CustomResourceDefinition 1"}));
  EXPECT_TRUE(p1.in_flight);
  EXPECT_EQ(p1.waiting_for, "ClusterServiceVersion etcd.v0.9.2");
  EXPECT_EQ(Statuses(p1.plan), (std::vector<std::string>{"Unknown", "Unknown", "Unknown", "Unknown", "Unknown"}));
  // The CRD carries the installed-alongside annotation of this CSV.
  const Json& crd = p1.writes[1].object;
  EXPECT_EQ(engine::GetString(crd, {"metadata", "annotations", AlongsideKey("ns1/etcd.v0.9.2")}), "ns1/etcd.v0.9.2");
  view.Land(p1, /*show=*/true);

  // Pass 2: the CSV is there with its uid: the RBAC is created, owned by it.
  PassResult p2 = ExecutePass(ip, view);
  EXPECT_EQ(Writes(p2), (std::vector<std::string>{"create ServiceAccount 2", "create Role 3", "create RoleBinding 4"}));
  for (const PlanWrite& w : p2.writes)
    EXPECT_EQ(engine::GetString(w.object["metadata"]["ownerReferences"][0], {"uid"}), "uid-etcd.v0.9.2");
  EXPECT_EQ(Statuses(p2.plan), (std::vector<std::string>{"Created", "WaitingForApi", "Unknown", "Unknown", "Unknown"}));
  EXPECT_TRUE(p2.in_flight);
  view.Land(p2, /*show=*/true);

  // Pass 3: every create answered: the statuses upstream's one pass writes.
  PassResult p3 = ExecutePass(ip, view);
  EXPECT_TRUE(p3.writes.empty());
  EXPECT_FALSE(p3.in_flight);
  EXPECT_TRUE(p3.waiting_for_api);
  EXPECT_EQ(Statuses(p3.plan), (std::vector<std::string>{"Created", "WaitingForApi", "Created", "Created", "Created"}));
  Json st = InstallingOutcome(ip["status"], p3, kT0, kInstallPlanRetryTimeoutNs);
  EXPECT_EQ(st["phase"], "Installing");
  EXPECT_EQ(st["startTime"], engine::FormatRfc3339Seconds(kT0));
  EXPECT_FALSE(st.contains("conditions"));
  ip["status"] = st;

  // Pass 4: the CRD is established: Complete, Installed=True.
  Establish(view, "etcdclusters.etcd.database.coreos.com");
  PassResult p4 = ExecutePass(ip, view);
  EXPECT_EQ(Statuses(p4.plan), (std::vector<std::string>{"Created", "Created", "Created", "Created", "Created"}));
  Json done = InstallingOutcome(ip["status"], p4, kT0 + 5 * kSecond, kInstallPlanRetryTimeoutNs);
  EXPECT_EQ(done["phase"], "Complete");
  EXPECT_EQ(done["startTime"], engine::FormatRfc3339Seconds(kT0));  // kept
  const std::string t5 = engine::FormatRfc3339Seconds(kT0 + 5 * kSecond);
  EXPECT_EQ(engine::Dump(done["conditions"]),
            engine::Dump(Json::array({Json{{"type", "Installed"},
                                           {"status", "True"},
                                           {"lastUpdateTime", t5},
                                           {"lastTransitionTime", t5}}})));
  EXPECT_FALSE(done.contains("message"));
}

TEST(PlanPass, ACrdNotEstablishedOnTheSecondLookFallsBackToUnknownAndHoldsNothing) {
  FakeView view;
  Json ip = EtcdPlan();
  ip["status"]["plan"][1]["status"] = "WaitingForApi";
  view.Put(J(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"etcdclusters.etcd.database.coreos.com"}})"));
  for (int i : {0, 2, 3, 4}) ip["status"]["plan"][i]["status"] = "Created";
  PassResult p = ExecutePass(ip, view);
  EXPECT_EQ(Statuses(p.plan)[1], "Unknown");
  EXPECT_FALSE(p.waiting_for_api);
  EXPECT_EQ(InstallingOutcome(ip["status"], p, kT0, kInstallPlanRetryTimeoutNs)["phase"], "Complete");
}

TEST(PlanPass, AFailedCreateIsRetriedUntilTheTimeoutThenThePlanFails) {
  FakeView view;
  Json ip = EtcdPlan();
  view.creates[{"operators.coreos.com", "ClusterServiceVersion", "ns1", "etcd.v0.9.2"}] =
      OwnCreate{OwnCreate::kFailed, "admission webhook denied the request"};
  PassResult p = ExecutePass(ip, view);
  EXPECT_TRUE(p.writes.empty());  // the first error ends the pass
  EXPECT_EQ(p.error.message(), "error creating csv etcd.v0.9.2: admission webhook denied the request");
  Json retry = InstallingOutcome(ip["status"], p, kT0, kInstallPlanRetryTimeoutNs);
  EXPECT_EQ(retry["phase"], "Installing");
  EXPECT_EQ(retry["message"],
            "retrying execution due to error: error creating csv etcd.v0.9.2: admission webhook denied the request");
  Json failed = InstallingOutcome(retry, p, kT0 + 60 * kSecond, kInstallPlanRetryTimeoutNs);
  EXPECT_EQ(failed["phase"], "Failed");
  EXPECT_EQ(failed["message"], "error creating csv etcd.v0.9.2: admission webhook denied the request");
  EXPECT_EQ(engine::GetString(failed["conditions"][0], {"reason"}), "InstallComponentFailed");
  EXPECT_EQ(engine::GetString(failed["conditions"][0], {"status"}), "False");
}

TEST(PlanPass, ExistingObjectsArePresentAndPatchedOnlyWhereUpstreamPatches) {
  FakeView view;
  Json ip = EtcdPlan();
  view.Put(J(R"({"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion",
    "metadata":{"name":"etcd.v0.9.2","namespace":"ns1","uid":"u1","resourceVersion":"3"}})"));
  // The ServiceAccount exists with a token secret and another owner.
  view.Put(J(R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"etcd-operator","namespace":"ns1",
    "resourceVersion":"4","ownerReferences":[{"kind":"Other","name":"x","uid":"ox"}]},"secrets":[{"name":"tok"}]})"));
  ip["status"]["plan"][1]["status"] = "Created";
  PassResult p = ExecutePass(ip, view);
  // CSV: Present, no write. ServiceAccount: updated to the union of owners,
  // its secrets kept. Role and RoleBinding: created.
  EXPECT_EQ(Statuses(p.plan)[0], "Present");
  EXPECT_EQ(Statuses(p.plan)[2], "Present");
  ASSERT_EQ(Writes(p), (std::vector<std::string>{"update ServiceAccount 2", "create Role 3", "create RoleBinding 4"}));
  const Json& sa = p.writes[0].object;
  EXPECT_EQ(sa["metadata"]["ownerReferences"].size(), 2u);
  EXPECT_EQ(sa["secrets"][0]["name"], "tok");
  EXPECT_EQ(sa["metadata"]["resourceVersion"], "4");
  // Once the ServiceAccount holds both owners, a pass writes nothing to it.
  view.Put(sa);
  ip["status"]["plan"][2]["status"] = "Unknown";
  PassResult again = ExecutePass(ip, view);
  EXPECT_EQ(Writes(again), (std::vector<std::string>{"create Role 3", "create RoleBinding 4"}));
}

TEST(PlanPass, AnExistingClusterRoleIsRelabelledForTheNewestCsv) {
  FakeView view;
  Json ip = EtcdPlan();
  Json step = Json{{"resolving", "etcd.v0.9.2"},
                   {"resource", Json{{"group", "rbac.authorization.k8s.io"},
                                     {"version", "v1"},
                                     {"kind", "ClusterRole"},
                                     {"name", "etcd-view"},
                                     {"manifest", R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"etcd-view","labels":{"olm.owner":"etcd.v0.9.0"}},"rules":[]})"}}},
                   {"status", "Unknown"}};
  ip["status"]["plan"] = Json::array({step});
  view.Put(J(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"etcd-view","uid":"c1","resourceVersion":"9","labels":{"olm.owner":"etcd.v0.9.0"}},"rules":[]})"));
  PassResult p = ExecutePass(ip, view);
  ASSERT_EQ(Writes(p), (std::vector<std::string>{"update ClusterRole 0"}));
  EXPECT_EQ(p.writes[0].object["metadata"]["labels"]["olm.owner"], "etcd.v0.9.2");
  EXPECT_EQ(p.writes[0].object["metadata"]["uid"], "c1");  // the live object's server fields stay
  EXPECT_EQ(Statuses(p.plan), std::vector<std::string>{"Present"});
}

TEST(PlanPass, AnUnsupportedKindIsInvalidData) {
  FakeView view;
  Json ip = EtcdPlan();
  ip["status"]["plan"] = Json::array({Json{
      {"resolving", "etcd.v0.9.2"},
      {"resource", Json{{"group", "apps"}, {"version", "v1"}, {"kind", "Deployment"}, {"name", "d"},
                        {"manifest", R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"}})"}}},
      {"status", "Unknown"}}});
  PassResult p = ExecutePass(ip, view);
  EXPECT_EQ(Statuses(p.plan), std::vector<std::string>{"UnsupportedResource"});
  EXPECT_EQ(p.error.message(), "the InstallPlan contains invalid data");
}

TEST(PlanPass, ASupportedKindNeedsDiscoveryAndIsOwnedByTheCsv) {
  FakeView view;
  Json ip = EtcdPlan();
  Json rule = Json{{"resolving", "etcd.v0.9.2"},
                   {"resource", Json{{"group", "monitoring.coreos.com"}, {"version", "v1"},
                                     {"kind", "PrometheusRule"}, {"name", "etcd-alerts"},
                                     {"manifest", R"({"apiVersion":"monitoring.coreos.com/v1","kind":"PrometheusRule","metadata":{"name":"etcd-alerts"}})"}}},
                   {"status", "Unknown"}};
  ip["status"]["plan"] = Json::array({rule});
  PassResult unserved = ExecutePass(ip, view);
  EXPECT_EQ(unserved.error.message(), "Unable to find GVK in discovery: monitoring.coreos.com v1 PrometheusRule");
  view.served["monitoring.coreos.com/v1/PrometheusRule"] = true;
  view.Put(J(R"({"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":"etcd.v0.9.2","namespace":"ns1","uid":"u1"}})"));
  PassResult p = ExecutePass(ip, view);
  ASSERT_EQ(Writes(p), std::vector<std::string>{"create PrometheusRule 0"});
  EXPECT_EQ(p.writes[0].object["metadata"]["namespace"], "ns1");
  EXPECT_EQ(p.writes[0].object["metadata"]["ownerReferences"][0]["uid"], "u1");
}

TEST(PlanPass, AnExistingCrdIsUpdatedUnlessAStoredVersionWouldGo) {
  FakeView view;
  Json ip = EtcdPlan();
  for (int i : {0, 2, 3, 4}) ip["status"]["plan"][i]["status"] = "Created";
  // A CSV that no longer exists and a copy are dropped from the alongside
  // annotations; an existing CSV stays beside this plan's.
  view.Put(J(R"({"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":"other.v1","namespace":"ns2"}})"));
  view.Put(J(R"({"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":"copy.v1","namespace":"ns3","labels":{"olm.copiedFrom":"ns2"}}})"));
  Json live = J(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":"etcdclusters.etcd.database.coreos.com","resourceVersion":"11","annotations":{"keep":"me"}},
    "status":{"storedVersions":["v1beta2"]}})");
  for (const char* ref : {"ns2/other.v1", "ns3/copy.v1", "ns9/gone.v1"})
    live["metadata"]["annotations"][AlongsideKey(ref)] = ref;
  view.Put(live);
  PassResult p = ExecutePass(ip, view);
  ASSERT_EQ(Writes(p), std::vector<std::string>{"update CustomResourceDefinition 1"});
  EXPECT_EQ(Statuses(p.plan)[1], "Present");
  const Json& ann = p.writes[0].object["metadata"]["annotations"];
  EXPECT_EQ(ann.size(), 3u) << ann;
  EXPECT_EQ(ann["keep"], "me");
  EXPECT_EQ(ann[AlongsideKey("ns2/other.v1")], "ns2/other.v1");
  EXPECT_EQ(ann[AlongsideKey("ns1/etcd.v0.9.2")], "ns1/etcd.v0.9.2");
  EXPECT_EQ(p.writes[0].object["metadata"]["resourceVersion"], "11");

  live["status"]["storedVersions"] = J(R"(["v1beta1","v1beta2"])");
  view.Put(live);
  PassResult risky = ExecutePass(ip, view);
  EXPECT_TRUE(risky.writes.empty());
  EXPECT_EQ(Statuses(risky.plan)[1], "Unknown");
  EXPECT_EQ(risky.error.message(),
            "risk of data loss updating \"etcdclusters.etcd.database.coreos.com\": new CRD removes version v1beta1 "
            "that is listed as a stored version on the existing CRD");
}

TEST(PlanPass, ACsvTheSpecDoesNotNameMustNotTakeAnotherCsvsCrd) {
  FakeView view;
  Json ip = EtcdPlan();
  ip["spec"]["clusterServiceVersionNames"] = Json::array({"something-else"});
  view.Put(J(R"({"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":"etcd.v0.9.0","namespace":"ns1"},
    "spec":{"customresourcedefinitions":{"owned":[{"name":"etcdclusters.etcd.database.coreos.com"}]}}})"));
  PassResult p = ExecutePass(ip, view);
  EXPECT_EQ(p.error.message(), "pre-existing CRD owners found for owned CRD(s) of dependent CSV etcd.v0.9.2");
  view.Put(J(R"({"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":"etcd.v0.9.1","namespace":"ns1"},
    "spec":{"customresourcedefinitions":{"owned":[{"name":"etcdclusters.etcd.database.coreos.com"}]}}})"));
  EXPECT_EQ(ExecutePass(ip, view).error.message(),
            "error checking crd owners for: etcd.v0.9.2: Existing CSVs [etcd.v0.9.0 etcd.v0.9.1] in namespace ns1 all "
            "claim to own CRD etcdclusters.etcd.database.coreos.com");
}

TEST(PlanPass, ASubscriptionStepIsCreatedWithItsPlanAndLeftAloneWhenThere) {
  FakeView view;
  Json ip = EtcdPlan();
  Json sub = Json{{"resolving", "dep.v1"},
                  {"resource", Json{{"group", "operators.coreos.com"}, {"version", "v1alpha1"}, {"kind", "Subscription"},
                                    {"name", "dep-stable-operatorhubio-olm"},
                                    {"manifest", R"({"apiVersion":"operators.coreos.com/v1alpha1","kind":"Subscription","metadata":{"name":"dep-stable-operatorhubio-olm","namespace":"ns1"},"spec":{"name":"dep"}})"}}},
                  {"status", "Unknown"}};
  ip["status"]["plan"] = Json::array({sub});
  PassResult p = ExecutePass(ip, view);
  ASSERT_EQ(Writes(p), std::vector<std::string>{"create Subscription 0"});
  EXPECT_EQ(p.writes[0].object["metadata"]["annotations"]["olm.generated-by"], "install-abcde");
  view.Put(J(R"({"apiVersion":"operators.coreos.com/v1alpha1","kind":"Subscription","metadata":{"name":"dep-stable-operatorhubio-olm","namespace":"ns1"}})"));
  PassResult there = ExecutePass(ip, view);
  EXPECT_TRUE(there.writes.empty());
  EXPECT_EQ(Statuses(there.plan), std::vector<std::string>{"Present"});
}

// A plan OLM made (adopted, or judged in shadow mode): its Subscription
// step's manifest has no apiVersion or kind (OLM's typed client adds them);
// the create carries the step resource's, or it would name no resource.
TEST(PlanPass, OlmsSubscriptionManifestGetsTheStepsApiVersionAndKind) {
  FakeView view;
  Json ip = EtcdPlan();
  ip["status"]["plan"] = Json::array({Json{
      {"resolving", "dep.v1"},
      {"resource", Json{{"group", "operators.coreos.com"}, {"version", "v1alpha1"}, {"kind", "Subscription"},
                        {"name", "dep-stable-community-olm"},
                        {"manifest", R"({"metadata":{"name":"dep-stable-community-olm","namespace":"ns1","creationTimestamp":null},"spec":{"name":"dep"},"status":{"lastUpdated":null}})"}}},
      {"status", "Unknown"}}});
  PassResult p = ExecutePass(ip, view);
  ASSERT_EQ(Writes(p), std::vector<std::string>{"create Subscription 0"});
  EXPECT_EQ(engine::GetString(p.writes[0].object, {"apiVersion"}), "operators.coreos.com/v1alpha1");
  EXPECT_EQ(engine::GetString(p.writes[0].object, {"metadata", "name"}), "dep-stable-community-olm");
}

TEST(PlanPass, AStepFromABundleLookupIsReadFromItsUnpackedConfigMap) {
  FakeView view;
  Json ip = EtcdPlan();
  Json ref = Json{{"resolving", "etcd.v0.9.2"},
                  {"resource", Json{{"sourceName", "operatorhubio"}, {"sourceNamespace", "olm"},
                                    {"group", "operators.coreos.com"}, {"version", "v1alpha1"},
                                    {"kind", "ClusterServiceVersion"}, {"name", "etcd.v0.9.2"},
                                    {"manifest", R"({"kind":"ConfigMap","name":"abc123","namespace":"olm","catalogSourceName":"operatorhubio","catalogSourceNamespace":"olm","replaces":"","properties":"{}"})"}}},
                  {"status", "Unknown"}};
  ip["status"]["plan"] = Json::array({ref});
  PassResult missing = ExecutePass(ip, view);
  EXPECT_EQ(missing.error.message(),
            "couldn't find unpacked step for etcd.v0.9.2: etcd.v0.9.2[operators.coreos.com/v1alpha1/"
            "ClusterServiceVersion (operatorhubio/olm)] (Unknown)");
  BundleContent content;
  content.csv = J(R"({"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":"etcd.v0.9.2"}})");
  content.catalog = "operatorhubio";
  content.catalog_ns = "olm";
  UnpackedManifests cm{"olm/abc123", std::make_shared<const std::vector<Json>>(*BundleSteps(content, "ns1"))};
  PassResult p = ExecutePass(ip, view, {cm});
  EXPECT_TRUE(p.error.ok()) << p.error;
  ASSERT_EQ(Writes(p), std::vector<std::string>{"create ClusterServiceVersion 0"});
  EXPECT_EQ(p.writes[0].object["metadata"]["namespace"], "ns1");
  // With the bundle's manifests parsed once (the reducer's memo), the same pass.
  cm.manifests = ParsedManifests(*cm.steps);
  PassResult q = ExecutePass(ip, view, {cm});
  EXPECT_TRUE(q.error.ok()) << q.error;
  ASSERT_EQ(Writes(q), Writes(p));
  EXPECT_EQ(q.writes[0].object, p.writes[0].object);
  EXPECT_EQ(q.plan, p.plan);
  // With the plan's manifest cache, twice: the same pass, the step's text parsed once.
  ManifestCache cache;
  PassOptions options;
  options.manifests = &cache;
  for (int i = 0; i < 2; ++i) {
    PassResult r = ExecutePass(ip, view, {cm}, options);
    EXPECT_TRUE(r.error.ok()) << r.error;
    EXPECT_EQ(Writes(r), Writes(p));
    EXPECT_EQ(r.writes[0].object, p.writes[0].object);
    EXPECT_EQ(cache.size(), 1u);
  }
}

}  // namespace
}  // namespace recon::olm
