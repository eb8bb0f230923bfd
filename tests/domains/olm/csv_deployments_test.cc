// A CSV's Deployments (domains/olm/csv/deployments.h): the object the
// install writes (olm-operator.md §B.3.1), readiness (§B.3.2) and drift
// (§B.3.3), each with upstream's exact text. The spec hash's value is Go
// specific (§0.3): only its presence, stability and change are checked.
#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "domains/olm/csv/deployments.h"

namespace recon::olm {
namespace {

using engine::Json;

Json Csv() {
  return Json::parse(R"({
    "apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
    "metadata": {"name": "etcd.v1", "namespace": "ops", "uid": "u-1",
      "annotations": {"olm.operatorGroup": "og", "olm.targetNamespaces": "ops",
                      "olm.operatorNamespace": "ops"}},
    "spec": {"install": {"strategy": "deployment", "spec": {"deployments": [
      {"name": "etcd-operator", "label": {"app": "etcd", "olm.owner": "spoofed"},
       "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "etcd"}},
         "template": {"metadata": {"labels": {"app": "etcd"},
                                   "annotations": {"kept": "yes", "olm.operatorGroup": "old"}},
           "spec": {"serviceAccountName": "etcd",
             "containers": [
               {"name": "op", "image": "quay.io/etcd:1",
                "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]},
               {"name": "side", "image": "quay.io/side:1"}],
             "initContainers": [{"name": "init", "image": "quay.io/init:1"}]}}}}]}}}})");
}

Json& EntryOf(Json& csv) { return csv["spec"]["install"]["spec"]["deployments"][0]; }

Json Build(const Json& csv, const DeploymentOverrides& o = {}) {
  Json copy = csv;
  return CsvDeployment(csv, EntryOf(copy), o);
}

std::string Hash(const Json& deployment) {
  return engine::GetString(deployment, {"metadata", "labels", kDeploymentSpecHashLabel});
}

Json& Container(Json& d, size_t i) { return d["spec"]["template"]["spec"]["containers"][i]; }

// "A=1 B=2" for a container's env.
std::string EnvOf(const Json& container) {
  std::string out;
  for (const Json& e : engine::Path(container, {"env"}))
    out += (out.empty() ? "" : " ") + engine::GetString(e, {"name"}) + "=" + engine::GetString(e, {"value"});
  return out;
}

std::string KeysOf(const Json& o) {
  std::string out;
  for (auto it = o.begin(); it != o.end(); ++it) out += (out.empty() ? "" : " ") + it.key();
  return out;
}

TEST(CsvDeployments, MetadataLabelsAndOwnerReference) {
  const Json d = Build(Csv());
  EXPECT_EQ(d["apiVersion"], "apps/v1");
  EXPECT_EQ(d["kind"], "Deployment");
  EXPECT_EQ(KeysOf(d["metadata"]), "name namespace labels ownerReferences");
  EXPECT_EQ(d["metadata"]["name"], "etcd-operator");
  EXPECT_EQ(d["metadata"]["namespace"], "ops");
  // The entry's labels, the owner labels over them, the hash last.
  const Json& labels = d["metadata"]["labels"];
  EXPECT_EQ(KeysOf(labels), "app olm.owner olm.owner.namespace olm.owner.kind olm.deployment-spec-hash");
  EXPECT_EQ(labels["app"], "etcd");
  EXPECT_EQ(labels["olm.owner"], "etcd.v1");
  EXPECT_EQ(labels["olm.owner.namespace"], "ops");
  EXPECT_EQ(labels["olm.owner.kind"], "ClusterServiceVersion");
  EXPECT_EQ(
      engine::Dump(d["metadata"]["ownerReferences"]),
      R"([{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","name":"etcd.v1",)"
      R"("uid":"u-1","blockOwnerDeletion":false,"controller":false}])");
  EXPECT_TRUE(HasCsvOwnerLabels(d, Csv()));
  Json other = Csv();
  other["metadata"]["namespace"] = "elsewhere";
  EXPECT_FALSE(HasCsvOwnerLabels(d, other));
}

TEST(CsvDeployments, PodTemplateAnnotationsOverlaidWithAllCsvAnnotations) {
  const Json d = Build(Csv());
  EXPECT_EQ(engine::Dump(d["spec"]["template"]["metadata"]["annotations"]),
            R"({"kept":"yes","olm.operatorGroup":"og","olm.targetNamespaces":"ops",)"
            R"("olm.operatorNamespace":"ops"})");
  EXPECT_EQ(d["spec"]["template"]["metadata"]["labels"], Json({{"app", "etcd"}}));
  Json bare = Csv();
  bare["metadata"].erase("annotations");
  EntryOf(bare)["spec"]["template"]["metadata"].erase("annotations");
  EXPECT_FALSE(Build(bare)["spec"]["template"]["metadata"].contains("annotations"));
}

TEST(CsvDeployments, ConditionNameInEveryContainerAndOneRevision) {
  Json csv = Csv();
  // A value already there is replaced in its place.
  Json& side = EntryOf(csv)["spec"]["template"]["spec"]["containers"][1];
  side["env"] =
      Json::parse(R"([{"name": "OPERATOR_CONDITION_NAME", "value": "stale"}, {"name": "Z", "value": "9"}])");
  Json d = Build(csv);
  EXPECT_EQ(EnvOf(Container(d, 0)), "A=1 B=2 OPERATOR_CONDITION_NAME=etcd.v1");
  EXPECT_EQ(EnvOf(Container(d, 1)), "OPERATOR_CONDITION_NAME=etcd.v1 Z=9");
  // Upstream injects into spec.containers only.
  EXPECT_FALSE(d["spec"]["template"]["spec"]["initContainers"][0].contains("env"));
  EXPECT_EQ(d["spec"]["revisionHistoryLimit"], 1);
  EXPECT_EQ(d["spec"]["replicas"], 1);
}

TEST(CsvDeployments, SubscriptionEnvReplacesInPlaceElseAppends) {
  struct Row {
    const char* config_env;
    const char* want;
  };
  const std::vector<Row> rows = {
      {R"([])", "A=1 B=2 OPERATOR_CONDITION_NAME=etcd.v1"},
      {R"([{"name": "B", "value": "x"}, {"name": "C", "value": "3"}])",
       "A=1 B=x C=3 OPERATOR_CONDITION_NAME=etcd.v1"},
      {R"([{"name": "D", "value": "4"}, {"name": "A", "value": "z"}])",
       "A=z B=2 D=4 OPERATOR_CONDITION_NAME=etcd.v1"},
      {R"([{"name": "OPERATOR_CONDITION_NAME", "value": "mine"}, {"name": "E", "value": "5"}])",
       "A=1 B=2 OPERATOR_CONDITION_NAME=etcd.v1 E=5"},
  };
  for (const Row& r : rows) {
    DeploymentOverrides o;
    o.config = Json{{"env", Json::parse(r.config_env)}};
    Json d = Build(Csv(), o);
    EXPECT_EQ(EnvOf(Container(d, 0)), r.want) << r.config_env;
  }
}

TEST(CsvDeployments, ProxyEnvOnlyWhenTheSubscriptionSetsNoneEmptyValuesDropped) {
  struct Row {
    const char* config;  // the Subscription's spec.config
    bool proxy;          // whether the Proxy `cluster` exists
    const char* want;    // the first container's env
  };
  const std::vector<Row> rows = {
      {"null", true, "A=1 B=2 HTTP_PROXY=http://p:3128 NO_PROXY=.svc OPERATOR_CONDITION_NAME=etcd.v1"},
      {R"({"env": [{"name": "X", "value": "1"}]})", true,
       "A=1 B=2 X=1 HTTP_PROXY=http://p:3128 NO_PROXY=.svc OPERATOR_CONDITION_NAME=etcd.v1"},
      {R"({"env": [{"name": "NO_PROXY", "value": "mine"}]})", true,
       "A=1 B=2 NO_PROXY=mine OPERATOR_CONDITION_NAME=etcd.v1"},
      {R"({"env": [{"name": "HTTPS_PROXY", "value": ""}]})", true,
       "A=1 B=2 HTTPS_PROXY= OPERATOR_CONDITION_NAME=etcd.v1"},
      {R"({"env": [{"name": "HTTP_PROXY", "value": "h"}]})", true,
       "A=1 B=2 HTTP_PROXY=h OPERATOR_CONDITION_NAME=etcd.v1"},
      {"null", false, "A=1 B=2 OPERATOR_CONDITION_NAME=etcd.v1"},
  };
  for (const Row& r : rows) {
    DeploymentOverrides o;
    o.config = Json::parse(r.config);
    if (r.proxy) o.proxy = ClusterProxy{"http://p:3128", "", ".svc"};
    Json d = Build(Csv(), o);
    EXPECT_EQ(EnvOf(Container(d, 0)), r.want) << r.config << " proxy=" << r.proxy;
  }
}

TEST(CsvDeployments, VolumesMountsTolerationsResourcesNodeSelector) {
  Json csv = Csv();
  Json& pod = EntryOf(csv)["spec"]["template"]["spec"];
  pod["volumes"] = Json::parse(R"([{"name": "v1", "emptyDir": {}}])");
  pod["containers"][0]["volumeMounts"] = Json::parse(R"([{"name": "v1", "mountPath": "/a"}])");
  pod["tolerations"] = Json::parse(R"([{"key": "k", "operator": "Exists"}])");
  pod["nodeSelector"] = Json{{"a", "b"}};
  const Json before = Build(csv);
  DeploymentOverrides o;
  o.config = Json::parse(R"({
    "volumes": [{"name": "v2", "emptyDir": {}}, {"name": "v1", "configMap": {"name": "c"}}],
    "volumeMounts": [{"name": "v2", "mountPath": "/b"}],
    "tolerations": [{"key": "k", "operator": "Exists", "value": ""},
                    {"key": "t", "operator": "Equal", "value": "x"}],
    "resources": {"limits": {"cpu": "1"}},
    "nodeSelector": {"x": "y"}})");
  Json d = Build(csv, o);
  const Json& out = d["spec"]["template"]["spec"];
  EXPECT_EQ(engine::Dump(out["volumes"]),
            R"([{"name":"v1","configMap":{"name":"c"}},{"name":"v2","emptyDir":{}}])");
  EXPECT_EQ(engine::Dump(out["containers"][0]["volumeMounts"]),
            R"([{"name":"v1","mountPath":"/a"},{"name":"v2","mountPath":"/b"}])");
  EXPECT_EQ(engine::Dump(out["containers"][1]["volumeMounts"]), R"([{"name":"v2","mountPath":"/b"}])");
  // An equal toleration ("" is Go's absent value) is not added twice.
  EXPECT_EQ(engine::Dump(out["tolerations"]),
            R"([{"key":"k","operator":"Exists"},{"key":"t","operator":"Equal","value":"x"}])");
  EXPECT_EQ(engine::Dump(out["containers"][0]["resources"]), R"({"limits":{"cpu":"1"}})");
  EXPECT_EQ(engine::Dump(out["containers"][1]["resources"]), R"({"limits":{"cpu":"1"}})");
  EXPECT_EQ(engine::Dump(out["nodeSelector"]), R"({"x":"y"})");
  // Without a config the pod is as the CSV has it.
  EXPECT_EQ(engine::Dump(before["spec"]["template"]["spec"]["nodeSelector"]), R"({"a":"b"})");
  EXPECT_FALSE(before["spec"]["template"]["spec"]["containers"][0].contains("resources"));
  EXPECT_EQ(before["spec"]["template"]["spec"]["tolerations"].size(), 1u);
}

TEST(CsvDeployments, AffinityOverride) {
  const char* n1 = R"({"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1}]})";
  const std::string n = std::string(R"("nodeAffinity": )") + n1;
  struct Row {
    std::string pod;       // the pod's affinity, "" for none
    std::string override;  // config.affinity, "" for none
    std::string want;      // the pod's affinity after, "" for none
  };
  const std::vector<Row> rows = {
      {"", "{" + n + "}",
       R"({"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1}]}})"},
      {"", R"({"nodeAffinity": {}})", R"({"nodeAffinity":{}})"},  // taken whole onto an empty pod
      {"{" + n + R"(, "podAffinity": {"x": 1}})", "{}", ""},
      {"{" + n + R"(, "podAffinity": {"x": 1}})", R"({"podAffinity": {"x": 2}})",
       R"({"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1}]},)"
       R"("podAffinity":{"x":2}})"},
      {"{" + n + R"(, "podAffinity": {"x": 1}})", R"({"nodeAffinity": {}})", R"({"podAffinity":{"x":1}})"},
      {"{" + n + "}", R"({"nodeAffinity": {}})", ""},
      // Upstream's quirk: an empty podAntiAffinity clears the whole affinity.
      {"{" + n + R"(, "podAntiAffinity": {"y": 1}})", R"({"podAntiAffinity": {}})", ""},
      {"{" + n + "}", "",
       R"({"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1}]}})"},
  };
  for (const Row& r : rows) {
    Json csv = Csv();
    if (!r.pod.empty()) EntryOf(csv)["spec"]["template"]["spec"]["affinity"] = Json::parse(r.pod);
    DeploymentOverrides o;
    if (!r.override.empty()) o.config = Json{{"affinity", Json::parse(r.override)}};
    const Json d = Build(csv, o);
    const Json& got = engine::Path(d, {"spec", "template", "spec", "affinity"});
    EXPECT_EQ(got.is_null() ? "" : engine::Dump(got), r.want) << r.pod << " <- " << r.override;
  }
}

TEST(CsvDeployments, SpecHashIsStableAndFollowsTheResultingSpec) {
  const std::string base = Hash(Build(Csv()));
  ASSERT_FALSE(base.empty());
  EXPECT_EQ(base.find_first_not_of("bcdfghjklmnpqrstvwxz2456789"), std::string::npos) << base;
  EXPECT_EQ(Hash(Build(Csv())), base);
  // Labels are not part of the spec; key order does not count.
  Json relabeled = Csv();
  EntryOf(relabeled)["label"]["extra"] = "x";
  EXPECT_EQ(Hash(Build(relabeled)), base);
  Json reordered = Csv();
  Json& spec = EntryOf(reordered)["spec"];
  const Json replicas = spec["replicas"];
  spec.erase("replicas");
  spec["replicas"] = replicas;
  EXPECT_EQ(Hash(Build(reordered)), base);

  Json image = Csv();
  EntryOf(image)["spec"]["template"]["spec"]["containers"][0]["image"] = "quay.io/etcd:2";
  EXPECT_NE(Hash(Build(image)), base);
  Json annotated = Csv();
  annotated["metadata"]["annotations"]["olm.targetNamespaces"] = "ops,apps";
  EXPECT_NE(Hash(Build(annotated)), base);
  DeploymentOverrides o;
  o.config = Json{{"env", Json::parse(R"([{"name": "X", "value": "1"}])")}};
  EXPECT_NE(Hash(Build(Csv(), o)), base);
  o = {};
  o.proxy = ClusterProxy{"http://p:3128", "", ""};
  EXPECT_NE(Hash(Build(Csv(), o)), base);
}

Json Status(const std::string& status, int generation = 1) {
  Json d = Json{{"metadata", {{"name", "etcd-operator"}, {"generation", generation}}}};
  d["status"] = Json::parse(status);
  return d;
}

TEST(CsvDeployments, ReadinessInUpstreamsOrder) {
  struct Row {
    Json deployment;
    std::string want;  // "ready" when ready
    bool unrecoverable;
  };
  const char* deadline =
      R"({"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded"})";
  const char* available = R"({"type": "Available", "status": "True"})";
  const std::vector<Row> rows = {
      {Status(R"({"observedGeneration": 1, "conditions": [)" + std::string(deadline) + "]}", 2),
       R"(waiting for spec update of deployment "etcd-operator" to be observed...)", false},
      {Status(R"({"observedGeneration": 1, "replicas": 3, "updatedReplicas": 1, "conditions": [)" +
              std::string(deadline) + "]}"),
       R"(deployment "etcd-operator" exceeded its progress deadline)", true},
      {Status(R"({"observedGeneration": 1, "replicas": 3, "updatedReplicas": 1, "conditions": [)" +
              std::string(available) + "]}"),
       R"(deployment "etcd-operator" waiting for 2 outdated replica(s) to be terminated)", false},
      {Status(R"({"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1})"),
       R"(deployment "etcd-operator" not available: missing condition "Available")", false},
      {Status(R"({"observedGeneration": 1, "conditions": [{"type": "Available", "status": "False",
                  "message": "Deployment does not have minimum availability."}]})"),
       R"(deployment "etcd-operator" not available: Deployment does not have minimum availability.)", false},
      {Status(R"({"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1, "conditions": [)" +
              std::string(available) + "]}"),
       "ready", false},
  };
  for (const Row& r : rows) {
    bool unrecoverable = !r.unrecoverable;
    std::optional<std::string> why = DeploymentNotReady(r.deployment, &unrecoverable);
    EXPECT_EQ(why.value_or("ready"), r.want) << engine::Dump(r.deployment);
    EXPECT_EQ(unrecoverable, r.unrecoverable) << r.want;
  }
}

std::string ClassName(DeploymentDriftClass c) {
  switch (c) {
    case DeploymentDriftClass::kComponentMissing:
      return "ComponentMissing";
    case DeploymentDriftClass::kUnrecoverable:
      return "Unrecoverable";
    case DeploymentDriftClass::kWaiting:
      return "Waiting";
    case DeploymentDriftClass::kAnnotationsMissing:
      return "AnnotationsMissing";
    case DeploymentDriftClass::kDeploymentUpdated:
      return "DeploymentUpdated";
  }
  return "?";
}

std::string DriftText(const std::optional<DeploymentDrift>& d) {
  return d ? ClassName(d->cls) + ": " + d->message : "healthy";
}

// What the install wrote, now rolled out.
Json Live(const Json& csv, const DeploymentOverrides& o = {}) {
  Json d = Build(csv, o);
  d["metadata"]["generation"] = 1;
  d["status"] = Json::parse(R"({"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1,
                                "conditions": [{"type": "Available", "status": "True"}]})");
  return d;
}

TEST(CsvDeployments, DriftClassesWithUpstreamsText) {
  Json csv = Csv();
  const Json& entry = EntryOf(csv);
  using Edit = std::function<void(Json&)>;
  auto annotations = [](Json& d) -> Json& { return d["spec"]["template"]["metadata"]["annotations"]; };
  struct Row {
    const char* what;
    Edit edit;
    std::string want;
  };
  const std::vector<Row> rows = {
      {"as written", [](Json&) {}, "healthy"},
      {"none", [](Json& d) { d = nullptr; }, "ComponentMissing: missing deployment with name=etcd-operator"},
      {"deadline",
       [](Json& d) {
         d["status"]["conditions"].push_back(
             Json{{"type", "Progressing"}, {"reason", "ProgressDeadlineExceeded"}});
       },
       R"(Unrecoverable: deployment etcd-operator not ready before timeout: )"
       R"(deployment "etcd-operator" exceeded its progress deadline)"},
      {"unavailable", [](Json& d) { d["status"]["conditions"] = Json::array(); },
       R"(Waiting: waiting for deployment etcd-operator to become ready: )"
       R"(deployment "etcd-operator" not available: missing condition "Available")"},
      {"no annotations", [&](Json& d) { d["spec"]["template"]["metadata"].erase("annotations"); },
       "AnnotationsMissing: no annotations found on deployment"},
      {"empty annotations", [&](Json& d) { annotations(d) = Json::object(); },
       "AnnotationsMissing: no annotations found on deployment"},
      {"one missing", [&](Json& d) { annotations(d).erase("olm.targetNamespaces"); },
       "AnnotationsMissing: annotations on deployment does not contain expected key: olm.targetNamespaces"},
      {"one changed", [&](Json& d) { annotations(d)["olm.operatorGroup"] = "other"; },
       "AnnotationsMissing: unexpected annotation on deployment. Expected olm.operatorGroup:og, found "
       "olm.operatorGroup:other"},
      {"no hash", [](Json& d) { d["metadata"]["labels"].erase(std::string(kDeploymentSpecHashLabel)); },
       "DeploymentUpdated: deployment etcd-operator doesn't have a spec hash, update it"},
      // Upstream selects by the owner labels: without them, not found.
      {"no labels", [](Json& d) { d["metadata"].erase("labels"); },
       "ComponentMissing: missing deployment with name=etcd-operator"},
      {"another owner", [](Json& d) { d["metadata"]["labels"]["olm.owner"] = "etcd.v0"; },
       "ComponentMissing: missing deployment with name=etcd-operator"},
      {"another name", [](Json& d) { d["metadata"]["name"] = "other"; },
       "ComponentMissing: missing deployment with name=etcd-operator"},
      // A user edit that keeps the hash label and annotations goes unseen.
      {"user edit", [](Json& d) { Container(d, 0)["image"] = "evil:1"; }, "healthy"},
  };
  for (const Row& r : rows) {
    Json live = Live(csv);
    r.edit(live);
    EXPECT_EQ(DriftText(CheckCsvDeployment(csv, entry, {}, live)), r.want) << r.what;
  }
}

TEST(CsvDeployments, HashMismatchAfterTheCsvOrItsOverridesChange) {
  Json old_csv = Csv();
  EntryOf(old_csv)["spec"]["template"]["spec"]["containers"][0]["image"] = "quay.io/etcd:0";
  const Json live = Live(old_csv);
  const Json csv = Csv();
  Json copy = csv;
  const Json& entry = EntryOf(copy);
  const std::string old_hash = Hash(live), new_hash = Hash(Build(csv));
  ASSERT_NE(old_hash, new_hash);
  EXPECT_EQ(DriftText(CheckCsvDeployment(csv, entry, {}, live)),
            "DeploymentUpdated: deployment changed old hash=" + old_hash + ", new hash=" + new_hash);
  // A new Subscription config (or proxy) is drift too; rebuilt with it, healthy.
  DeploymentOverrides o;
  o.proxy = ClusterProxy{"", "https://p", ""};
  const Json current = Live(csv);
  EXPECT_EQ(DriftText(CheckCsvDeployment(csv, entry, o, current)),
            "DeploymentUpdated: deployment changed old hash=" + Hash(current) +
                ", new hash=" + Hash(Build(csv, o)));
  EXPECT_EQ(DriftText(CheckCsvDeployment(csv, entry, o, Live(csv, o))), "healthy");
}

// A Deployment written by another olm operator (the real one: its hash is
// over Go's dump, never ours) is unchanged while it holds the spec we would
// write, the server's defaults beside it; a field of ours changed is drift.
TEST(CsvDeployments, AnotherWritersHashIsJudgedByTheSpec) {
  const Json csv = Csv();
  Json copy = csv;
  const Json& entry = EntryOf(copy);
  Json theirs = Live(csv);
  theirs["metadata"]["labels"][std::string(kDeploymentSpecHashLabel)] = "75f48dc767";
  theirs["spec"]["progressDeadlineSeconds"] = 600;
  theirs["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] = "IfNotPresent";
  EXPECT_EQ(DriftText(CheckCsvDeployment(csv, entry, {}, theirs)), "healthy");
  theirs["spec"]["template"]["spec"]["containers"][0]["image"] = "quay.io/etcd:edited";
  EXPECT_EQ(DriftText(CheckCsvDeployment(csv, entry, {}, theirs)),
            "DeploymentUpdated: deployment changed old hash=75f48dc767, new hash=" + Hash(Build(csv)));
}

TEST(CsvDeployments, CanonicalEqualIsTheCanonicalFormsCompared) {
  auto j = [](const char* text) { return *engine::ParseJson(text); };
  const std::vector<Json> values = {j(R"({"a":1,"b":[{"x":null,"y":2}]})"),
                                    j(R"({"b":[{"y":2}],"a":1})"),
                                    j(R"({"b":[{"y":2}],"a":1.0})"),
                                    j(R"({"b":[{"y":3}],"a":1})"),
                                    j(R"({"a":1})"),
                                    j(R"({"a":1,"c":null})"),
                                    j(R"({})"),
                                    j(R"({"z":null})"),
                                    j(R"([1,{"k":"v","n":null}])"),
                                    j(R"([1,{"k":"v"}])"),
                                    j(R"([{"k":"v"},1])"),
                                    j(R"([])"),
                                    j(R"(null)"),
                                    j(R"("s")"),
                                    j(R"({"a":{"b":{"c":[1,2]}}})"),
                                    j(R"({"a":{"b":{"c":[2,1]}}})")};
  for (const Json& a : values)
    for (const Json& b : values)
      EXPECT_EQ(CanonicalEqual(a, b), CanonicalJson(a) == CanonicalJson(b)) << a.dump() << " vs " << b.dump();
  EXPECT_TRUE(CanonicalEqual(values[0], values[1]));
  EXPECT_FALSE(CanonicalEqual(values[1], values[3]));
}

}  // namespace
}  // namespace recon::olm
