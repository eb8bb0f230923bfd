// adapters/importers/must_gather: an `oc adm must-gather` directory -> the
// Added events of one moment. The tree below is laid out as oc writes it:
// must-gather.local.<n>/ holding `timestamp` and one directory per gather
// image, with cluster-scoped-resources/<group>/<resource>/<name>.yaml,
// namespaces/<ns>/<ns>.yaml, namespaces/<ns>/<group>/<resource>.yaml lists
// ("core" for the core group) and pods under namespaces/<ns>/pods/<pod>/.
#include "adapters/importers/must_gather.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "base/strings.h"
#include "engine/json.h"
#include "engine/time_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/adapters/importers/declared_kinds.h"
#include "tests/store/test_util.h"

namespace recon::adapters::importers {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

void Write(const std::string& path, std::string_view text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

using testing::Declared;

class MustGatherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    top_ = tmp_.Sub("must-gather.local.5096618430938291713");
    image_ = top_ + "/quay-io-openshift-release-dev-ocp-v4-0-art-dev-sha256-3d5c1d1ec58e2b2ad1b0c1d3e5bb7c6a";
    // oc writes the start and, when done, the end of the gather.
    Write(top_ + "/timestamp",
          "2026-11-21 10:20:30.463532376 +0000 UTC m=+0.061236493\n"
          "2026-11-21 10:22:01.5 +0000 UTC m=+91.099\n");
    Write(top_ + "/event-filter.html", "<html></html>");
    Write(image_ + "/version", "openshift/must-gather\n4.16.0\n");
    Write(image_ + "/cluster-scoped-resources/samples.operator.openshift.io/configs/cluster.yaml",
          "---\n"
          "apiVersion: samples.operator.openshift.io/v1\n"
          "kind: Config\n"
          "metadata:\n"
          "  name: cluster\n"
          "  resourceVersion: \"48211903\"\n"
          "  uid: 5d1c7a0e-0001\n"
          "spec:\n"
          "  architectures:\n"
          "  - x86_64\n"
          "  managementState: Removed\n"
          "status:\n"
          "  conditions:\n"
          "  - lastTransitionTime: \"2026-11-21T10:04:12Z\"\n"
          "    status: \"True\"\n"
          "    type: RemovePending\n"
          "  managementState: Managed\n");
    Write(
        image_ + "/cluster-scoped-resources/config.openshift.io/clusteroperators/openshift-samples.yaml",
        "apiVersion: config.openshift.io/v1\nkind: ClusterOperator\nmetadata:\n  name: openshift-samples\n");
    Write(image_ + "/cluster-scoped-resources/core/nodes/master-0.yaml",
          "apiVersion: v1\nkind: Node\nmetadata:\n  name: master-0\n");
    Write(image_ + "/namespaces/openshift/openshift.yaml",
          "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: openshift\n");
    Write(image_ + "/namespaces/openshift/image.openshift.io/imagestreams.yaml",
          "apiVersion: image.openshift.io/v1\n"
          "items:\n"
          "- apiVersion: image.openshift.io/v1\n"
          "  kind: ImageStream\n"
          "  metadata:\n"
          "    labels:\n"
          "      samples.operator.openshift.io/managed: \"true\"\n"
          "    name: jenkins\n"
          "    namespace: openshift\n"
          "    resourceVersion: \"48212110\"\n"
          "  spec:\n"
          "    tags:\n"
          "    - from:\n"
          "        kind: DockerImage\n"
          "        name: registry.redhat.io/ocp-tools-4/jenkins-rhel9:v4.16.0\n"
          "      name: \"2\"\n"
          "- apiVersion: image.openshift.io/v1\n"
          "  kind: ImageStream\n"
          "  metadata:\n"
          "    name: ruby\n"
          "    namespace: openshift\n"
          "kind: ImageStreamList\n"
          "metadata:\n"
          "  resourceVersion: \"\"\n");
    Write(image_ + "/namespaces/openshift/core/configmaps.yaml",
          "apiVersion: v1\nitems: []\nkind: ConfigMapList\nmetadata:\n  resourceVersion: \"\"\n");
    Write(image_ +
              "/namespaces/openshift-cluster-samples-operator/core/configmaps/imagestreamtag-to-image.yaml",
          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: imagestreamtag-to-image\n"
          "  namespace: openshift-cluster-samples-operator\ndata:\n  jenkins_2: jenkins-rhel9\n");
    Write(image_ + "/namespaces/openshift-cluster-samples-operator/core/pods.yaml",
          "apiVersion: v1\nitems: []\nkind: PodList\nmetadata: {}\n");
    Write(image_ +
              "/namespaces/openshift-cluster-samples-operator/pods/cso-6b8f4d5c7-x2xkq/"
              "cso-6b8f4d5c7-x2xkq.yaml",
          "apiVersion: v1\nkind: Pod\nmetadata:\n  name: cso-6b8f4d5c7-x2xkq\n");
    Write(image_ +
              "/namespaces/openshift-cluster-samples-operator/pods/cso-6b8f4d5c7-x2xkq/"
              "cluster-samples-operator/"
              "cluster-samples-operator/logs/current.log",
          "I1121 10:04:12.000000 1 handler.go:123] removal in progress\n");
  }

  store::testing::TempDir tmp_;
  std::string top_, image_;
};

TEST_F(MustGatherTest, ObjectsOfDeclaredKindsAtTheEndOfTheGather) {
  auto r = DecodeMustGather(top_, Declared());
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<std::string> got;
  for (const auto& e : r->events) {
    EXPECT_EQ(e.type, records::EventType::kAdded);
    EXPECT_EQ(e.time_ns, *engine::ParseRfc3339("2026-11-21T10:22:01.5Z"));
    got.push_back(recon::StrCat(e.object.kind, " ", e.object.ns, "/", e.object.name));
  }
  // Paths in sorted order (by path element), list items in their order.
  EXPECT_THAT(
      got, ElementsAre("ClusterOperator /openshift-samples", "Config /cluster",
                       "ImageStream openshift/jenkins", "ImageStream openshift/ruby", "Namespace /openshift",
                       "ConfigMap openshift-cluster-samples-operator/imagestreamtag-to-image"));
  const auto& config = r->events[1];
  EXPECT_EQ(config.object.group, "samples.operator.openshift.io");
  EXPECT_EQ(config.object.resource_version, "48211903");
  auto body = engine::ParseJson(config.body);
  ASSERT_TRUE(body.ok());
  // Quoted YAML scalars stay strings.
  EXPECT_EQ((*body)["status"]["conditions"][0]["status"], "True");
  EXPECT_EQ(
      (*r->events.begin()).body,
      R"({"apiVersion":"config.openshift.io/v1","kind":"ClusterOperator","metadata":{"name":"openshift-samples"}})");
  EXPECT_THAT(r->skipped,
              ElementsAre(Pair("files of resources no domain declares (--all-kinds reads them)", 3)));
}

TEST_F(MustGatherTest, AllKindsAndTheImageDirectoryItself) {
  KindFilter all = Declared();
  all.all_kinds = true;
  // The image directory has no timestamp of its own: --time gives it.
  auto missing = DecodeMustGather(image_, all);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("no timestamp file"));
  auto r = DecodeMustGather(image_, all, *engine::ParseRfc3339("2026-11-21T11:00:00Z"));
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<std::string> kinds;
  for (const auto& e : r->events) kinds.push_back(e.object.kind);
  EXPECT_THAT(kinds, ElementsAre("ClusterOperator", "Node", "Config", "ImageStream", "ImageStream",
                                 "Namespace", "ConfigMap", "Pod"));
  EXPECT_EQ(r->events[0].time_ns, *engine::ParseRfc3339("2026-11-21T11:00:00Z"));
}

TEST_F(MustGatherTest, BadFilesNameThePathAndTheField) {
  const std::string streams = image_ + "/namespaces/openshift/image.openshift.io/imagestreams.yaml";
  Write(streams,
        "apiVersion: v1\nkind: ImageStreamList\nitems:\n- apiVersion: image.openshift.io/v1\n  kind: "
        "ImageStream\n  metadata:\n    namespace: openshift\n");
  auto r = DecodeMustGather(top_, Declared());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            recon::StrCat(streams, ": items[0]: \"metadata.name\": missing; expected a non-empty string"));
  Write(streams, "apiVersion: v1\nkind: ImageStreamList\nitems:\n  - a: [1,\n");
  r = DecodeMustGather(top_, Declared());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr(streams));
  EXPECT_THAT(r.status().message(), HasSubstr("line"));
  Write(top_ + "/timestamp", "soon\n");
  r = DecodeMustGather(top_, Declared());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(),
              HasSubstr(recon::StrCat(top_, "/timestamp: line 1: \"soon\" is not a time")));
  r = DecodeMustGather(tmp_.Sub("nowhere"), Declared());
  EXPECT_FALSE(r.ok());
  r = DecodeMustGather(tmp_.path(), Declared());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("not a must-gather directory"));
}

TEST(MustGatherTimestamp, GoTimeStringOrRfc3339) {
  EXPECT_EQ(*ParseMustGatherTimestamp("2026-11-21 10:20:30.5 +0100 CET m=+0.1\n", "t"),
            *engine::ParseRfc3339("2026-11-21T09:20:30.5Z"));
  EXPECT_EQ(*ParseMustGatherTimestamp("2026-11-21T10:20:30Z", "t"),
            *engine::ParseRfc3339("2026-11-21T10:20:30Z"));
  EXPECT_FALSE(ParseMustGatherTimestamp("", "t").ok());
}

}  // namespace
}  // namespace recon::adapters::importers
