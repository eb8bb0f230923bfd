// Image references and a bundle's related images: the bundle image,
// relatedImages, and RELATED_IMAGE_* env read from an olm.bundle.object CSV
// (the simple-disconnected-operator's own CSV shape), in JSON and YAML
// catalogs; the disconnected check.
#include "domains/olm/catalog/related_images.h"

#include <gtest/gtest.h>

#include "absl/strings/escaping.h"
#include "base/strings.h"
#include "domains/olm/catalog/loader.h"
#include "engine/image_ref.h"

namespace recon::olm {
namespace {

constexpr char kFedora[] =
    "quay.io/fedora/fedora@sha256:b0c61163ff03105c5cce455b01f962e32d79895417bb153894cfa4e135bdb46a";
constexpr char kManager[] =
    "quay.io/opdev/"
    "simple-disconnected-operator-cm@sha256:c493825f45109230e0a03b4f102bad10130164330d396f545e2ae88794b4f7d9";

TEST(ImageRef, ParsesRegistryRepositoryTagDigest) {
  auto r = engine::ParseImageRef(kFedora);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->registry, "quay.io");
  EXPECT_EQ(r->repository, "fedora/fedora");
  EXPECT_EQ(r->tag, "");
  EXPECT_TRUE(r->pinned());
  EXPECT_EQ(r->String(), kFedora);

  r = engine::ParseImageRef(
      "localhost:5000/ns/app:v1.2@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->registry, "localhost:5000");
  EXPECT_EQ(r->tag, "v1.2");
  EXPECT_TRUE(r->pinned());

  r = engine::ParseImageRef("busybox:latest");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->registry_implicit);
  EXPECT_EQ(r->registry, "docker.io");
  EXPECT_EQ(r->Name(), "busybox");
  EXPECT_FALSE(r->pinned());

  r = engine::ParseImageRef("registry:5000/app");  // a port makes it a registry
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->registry, "registry:5000");
  EXPECT_EQ(r->tag, "");

  EXPECT_EQ(engine::ParseImageRef("quay.io/a@sha256:xyz").status().message(),
            "image reference \"quay.io/a@sha256:xyz\": digest \"sha256:xyz\" is not algorithm:hex");
  EXPECT_FALSE(engine::ParseImageRef("").ok());
  EXPECT_FALSE(engine::ParseImageRef("quay.io/UPPER:1").ok());
  EXPECT_FALSE(engine::ParseImageRef("quay.io/a:-bad").ok());
}

std::string Csv(const std::string& busybox_env_value) {
  return recon::StrCat(
      R"({"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":"simple-disconnected-operator.v0.0.2"},"spec":{"install":{"strategy":"deployment","spec":{"deployments":[{"name":"simple-disconnected-operator-controller-manager","spec":{"template":{"spec":{"containers":[{"name":"kube-rbac-proxy","image":"gcr.io/kubebuilder/kube-rbac-proxy:v0.13.0"},{"name":"manager","image":")",
      kManager, R"(","env":[{"name":"RELATED_IMAGE_FEDORA","value":")", kFedora,
      R"("},{"name":"RELATED_IMAGE_BUSYBOX","value":")", busybox_env_value,
      R"x("},{"name":"DFA_SLEEPER_IMAGE","value":"$(RELATED_IMAGE_FEDORA)"}]}]}}}}]}}}})x");
}

std::map<std::string, std::string> Catalog(bool yaml, const std::string& busybox) {
  std::string data;
  absl::Base64Escape(Csv(busybox), &data);
  std::string pkg =
      R"({"schema":"olm.package","name":"simple-disconnected-operator","defaultChannel":"alpha"})";
  std::string ch =
      R"({"schema":"olm.channel","package":"simple-disconnected-operator","name":"alpha","entries":[{"name":"simple-disconnected-operator.v0.0.2"}]})";
  if (!yaml) {
    std::string b = recon::StrCat(
        R"({"schema":"olm.bundle","name":"simple-disconnected-operator.v0.0.2","package":"simple-disconnected-operator","image":"quay.io/opdev/simple-disconnected-operator-bundle:v0.0.2","properties":[{"type":"olm.package","value":{"packageName":"simple-disconnected-operator","version":"0.0.2"}},{"type":"olm.bundle.object","value":{"data":")",
        data, R"("}}],"relatedImages":[{"name":"manager","image":")", kManager,
        R"("},{"name":"fedora","image":")", kFedora, R"("}]})");
    return {{"catalog.json", recon::StrCat(pkg, "\n", ch, "\n", b, "\n")}};
  }
  std::string b = recon::StrCat(
      "---\nschema: olm.bundle\nname: simple-disconnected-operator.v0.0.2\npackage: "
      "simple-disconnected-operator\n"
      "image: quay.io/opdev/simple-disconnected-operator-bundle:v0.0.2\nproperties:\n"
      "- type: olm.package\n  value:\n    packageName: simple-disconnected-operator\n    version: 0.0.2\n"
      "- type: olm.bundle.object\n  value:\n    data: ",
      data, "\nrelatedImages:\n- name: manager\n  image: ", kManager, "\n- name: fedora\n  image: ", kFedora,
      "\n");
  return {{"catalog.yaml", recon::StrCat("---\nschema: olm.package\nname: simple-disconnected-operator\n"
                                         "defaultChannel: alpha\n---\nschema: olm.channel\n"
                                         "package: simple-disconnected-operator\nname: alpha\nentries:\n"
                                         "- name: simple-disconnected-operator.v0.0.2\n",
                                         b)}};
}

TEST(RelatedImages, BundleRelatedAndEnvFromBundleObject) {
  for (bool yaml : {false, true}) {
    engine::MemoryFileSource src(Catalog(yaml, "docker.io/library/busybox:1.36"));
    auto cfg = LoadCatalog(src);
    ASSERT_TRUE(cfg.ok()) << cfg.status();
    ASSERT_EQ(cfg->bundles.size(), 1u);
    BundleImages images = CollectBundleImages(*cfg, cfg->bundles[0]);
    EXPECT_EQ(images.error, "") << (yaml ? "yaml" : "json");
    ASSERT_EQ(images.uses.size(), 5u) << (yaml ? "yaml" : "json");
    EXPECT_EQ(images.uses[0].source, "bundle");
    EXPECT_EQ(images.uses[1].source, "relatedImages manager");
    EXPECT_EQ(images.uses[2].image, kFedora);
    EXPECT_EQ(images.uses[3].image, kFedora);
    EXPECT_EQ(
        images.uses[3].source,
        "env RELATED_IMAGE_FEDORA (deployment simple-disconnected-operator-controller-manager, container "
        "manager)");
    EXPECT_EQ(images.uses[4].image, "docker.io/library/busybox:1.36");  // DFA_* are not RELATED_IMAGE_*

    auto findings = CheckBundleImages(images);
    ASSERT_EQ(findings.size(), 3u);
    EXPECT_EQ(findings[0].source, "bundle");
    EXPECT_EQ(findings[0].problem, "tag reference, no digest");
    EXPECT_EQ(findings[1].image, "docker.io/library/busybox:1.36");
    EXPECT_EQ(findings[1].problem, "tag reference, no digest");
    EXPECT_EQ(findings[2].problem, "not listed in relatedImages");
  }
}

TEST(RelatedImages, DroppedPayloadsAreReportedNotIgnored) {
  engine::MemoryFileSource src(Catalog(false, kFedora));
  LoadOptions opts;
  opts.keep_payloads = false;
  auto cfg = LoadCatalog(src, opts);
  ASSERT_TRUE(cfg.ok());
  BundleImages images = CollectBundleImages(*cfg, cfg->bundles[0]);
  EXPECT_EQ(images.error, "bundle object payloads were dropped at load");
  auto findings = CheckBundleImages(images);
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings.back().source, "bundle object");
}

}  // namespace
}  // namespace recon::olm
