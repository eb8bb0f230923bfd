// deploy/'s RBAC is the least the domains need: it equals what `recon rbac`
// derives from the domains' declared resource uses, and every write and
// every observed kind in the scenario tests is covered by it.
#include "cli/rbac.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "cli/domains.h"
#include "engine/json.h"
#include "gtest/gtest.h"

namespace recon::cli {
namespace {

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<engine::ResourceUse> AllDomainResources() {
  auto engine = MakeEngine("", {});
  EXPECT_TRUE(engine.ok()) << engine.status();
  return DomainResources(**engine);
}

// (group, kind) → plural, from the declarations.
std::map<std::pair<std::string, std::string>, std::string> Plurals(const std::vector<engine::ResourceUse>& uses) {
  std::map<std::pair<std::string, std::string>, std::string> out;
  for (const auto& u : uses) out[{u.type.group, u.type.kind}] = u.type.plural;
  return out;
}

bool Allows(const std::vector<RbacRule>& rules, const std::string& group, const std::string& resource,
            const std::string& verb) {
  return std::any_of(rules.begin(), rules.end(), [&](const RbacRule& r) {
    return r.api_group == group && r.resource == resource &&
           std::find(r.verbs.begin(), r.verbs.end(), verb) != r.verbs.end();
  });
}

std::string GroupOf(const std::string& api_version) {
  size_t slash = api_version.find('/');
  return slash == std::string::npos ? "" : api_version.substr(0, slash);
}

TEST(RbacTest, DeployMatchesWhatTheDomainsDeclare) {
  std::string deployed = ReadFile(std::filesystem::path(RECON_SOURCE_DIR) / "deploy" / "02-rbac.yaml");
  ASSERT_FALSE(deployed.empty()) << "deploy/02-rbac.yaml missing";
  // The domains deploy/04-deployment.yaml runs.
  auto engine = MakeEngine("samples,olm", {});
  ASSERT_TRUE(engine.ok()) << engine.status();
  std::string derived = RenderRbac(DomainResources(**engine), RbacOptions{});
  // The file starts with a comment saying how it was made; the rest is
  // exactly `recon rbac` output.
  size_t start = deployed.find("---");
  ASSERT_NE(start, std::string::npos);
  EXPECT_EQ(deployed.substr(start), derived) << "regenerate with: recon rbac --domains samples,olm (keep the header)";
}

TEST(RbacTest, AnOptionThatWidensTheWritesWidensTheRole) {
  // Planning only, beside a cluster's OLM; carrying plans out (the default
  // since issue 49); the olm operator alone (olm.csvLifecycle, issue 50).
  auto plain = MakeEngine("olm", {"olm.executePlans=false", "olm.csvLifecycle=false"});
  auto executing = MakeEngine("olm", {});
  auto lifecycle = MakeEngine("olm", {"olm.executePlans=false", "olm.csvLifecycle=true"});
  ASSERT_TRUE(plain.ok() && executing.ok() && lifecycle.ok());
  auto narrow = ClusterRules(DomainResources(**plain));
  auto wide = ClusterRules(DomainResources(**executing));
  auto csvs = ClusterRules(DomainResources(**lifecycle));
  EXPECT_FALSE(Allows(narrow, "apps", "deployments", "create"));
  EXPECT_TRUE(Allows(csvs, "apps", "deployments", "create"));
  EXPECT_TRUE(Allows(csvs, "operators.coreos.com", "clusterserviceversions/status", "update"));
  EXPECT_FALSE(Allows(csvs, "batch", "jobs", "create")) << "unpack Jobs are the catalog operator's";
  EXPECT_FALSE(Allows(narrow, "apiextensions.k8s.io", "customresourcedefinitions", "create"));
  EXPECT_TRUE(Allows(wide, "apiextensions.k8s.io", "customresourcedefinitions", "create"));
  EXPECT_TRUE(Allows(wide, "rbac.authorization.k8s.io", "clusterrolebindings", "create"));
  EXPECT_TRUE(Allows(wide, "operators.coreos.com", "clusterserviceversions", "create"));
  EXPECT_FALSE(Allows(narrow, "operators.coreos.com", "clusterserviceversions", "create"));
  // A role granting the operator's permissions, and its binding, need them.
  EXPECT_TRUE(Allows(wide, "rbac.authorization.k8s.io", "clusterroles", "escalate"));
  EXPECT_TRUE(Allows(wide, "rbac.authorization.k8s.io", "roles", "bind"));
  EXPECT_FALSE(Allows(narrow, "rbac.authorization.k8s.io", "roles", "escalate"));
}

TEST(RbacTest, ClusterRoleGrantsNothingUndeclared) {
  auto uses = AllDomainResources();
  auto rules = ClusterRules(uses);
  ASSERT_FALSE(rules.empty());
  for (const auto& r : rules) {
    for (const auto& v : r.verbs) {
      EXPECT_NE(v, "*") << r.resource;
      const bool role = r.api_group == "rbac.authorization.k8s.io" && (r.resource == "roles" || r.resource == "clusterroles");
      EXPECT_TRUE(v == "get" || v == "list" || v == "watch" || v == "create" || v == "update" || v == "patch" ||
                  v == "delete" || (role && (v == "escalate" || v == "bind")))
          << r.resource << " " << v;
    }
    EXPECT_NE(r.resource, "*");
    EXPECT_NE(r.api_group, "*");
  }
  // Secrets are read (the pull-secret check) and written only by aro.
  EXPECT_TRUE(Allows(rules, "", "secrets", "watch"));
  EXPECT_FALSE(Allows(rules, "", "secrets", "delete"));
  auto samples_only = MakeEngine("samples", {});
  ASSERT_TRUE(samples_only.ok());
  EXPECT_FALSE(Allows(ClusterRules(DomainResources(**samples_only)), "", "secrets", "update"));
  EXPECT_FALSE(Allows(rules, "coordination.k8s.io", "leases", "update")) << "the Lease is the Role's, not cluster-wide";
  EXPECT_TRUE(Allows(NamespaceRules(), "coordination.k8s.io", "leases", "update"));
}

// A shadow agent's role reads what the full role reads, and nothing else:
// no write verb, no subresource, no Lease, no Role at all.
TEST(RbacTest, ShadowRoleOnlyReadsWhatTheAgentWatches) {
  auto uses = AllDomainResources();
  auto full = ClusterRules(uses);
  auto shadow = ClusterRules(uses, /*read_only=*/true);
  ASSERT_FALSE(shadow.empty());
  for (const auto& r : shadow) {
    EXPECT_EQ(r.resource.find('/'), std::string::npos) << r.resource;
    EXPECT_NE(r.resource, "imagestreamimports");
    for (const auto& v : r.verbs) {
      EXPECT_TRUE(v == "get" || v == "list" || v == "watch") << r.resource << " " << v;
      EXPECT_TRUE(Allows(full, r.api_group, r.resource, v))
          << r.resource << " " << v << " beyond the full role";
    }
  }
  // Everything the full role lists and watches, the shadow role does too.
  int watched = 0;
  for (const auto& r : full) {
    for (const char* v : {"list", "watch"}) {
      if (!Allows(full, r.api_group, r.resource, v)) continue;
      EXPECT_TRUE(Allows(shadow, r.api_group, r.resource, v)) << r.resource << " " << v;
      ++watched;
    }
  }
  EXPECT_GT(watched, 10);
  RbacOptions o;
  o.shadow = true;
  o.name = "recon-shadow";
  std::string yaml = RenderRbac(uses, o);
  EXPECT_NE(yaml.find("kind: ClusterRole\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("kind: ClusterRoleBinding\n"), std::string::npos);
  EXPECT_EQ(yaml.find("kind: Role\n"), std::string::npos) << "a shadow agent takes no Lease";
  EXPECT_EQ(yaml.find("leases"), std::string::npos);
  for (const char* w : {"create", "update", "patch", "delete"}) {
    EXPECT_EQ(yaml.find(w), std::string::npos) << w;
  }
  EXPECT_NE(yaml.find("name: recon-shadow"), std::string::npos);
}

// Every action the domains emit in the scenario tests, mapped to the RBAC
// verb the live adapter uses for it, is granted; every kind they observe is
// watchable.
TEST(RbacTest, ScenarioWritesAndWatchesAreCovered) {
  // With the options that widen what a domain writes (some scenarios run
  // with them, e.g. olm.executePlans, olm.csvLifecycle).
  auto engine = MakeEngine("", {"olm.executePlans=true", "olm.csvLifecycle=true"});
  ASSERT_TRUE(engine.ok()) << engine.status();
  auto uses = DomainResources(**engine);
  auto rules = ClusterRules(uses);
  auto plurals = Plurals(uses);
  int writes = 0, watched = 0;
  std::set<std::string> problems;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(std::filesystem::path(RECON_SOURCE_DIR) / "tests" / "scenarios")) {
    std::string ext = entry.path().extension();
    if (ext != ".expected" && ext != ".jsonl") continue;
    std::istringstream in(ReadFile(entry.path()));
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] != '{') continue;
      auto j = engine::ParseJson(line);
      if (!j.ok() || !j->contains("object")) continue;
      const engine::Json& o = (*j)["object"];
      std::string group = GroupOf(engine::GetString(o, {"apiVersion"}));
      std::string kind = engine::GetString(o, {"kind"});
      if (ext == ".jsonl") {
        // Kinds a domain ignores (e.g. an Image config in an olm scenario)
        // need no watch; only declared kinds are checked here.
        auto it = plurals.find({group, kind});
        if (it == plurals.end()) continue;
        for (const char* v : {"get", "list", "watch"}) {
          if (!Allows(rules, group, it->second, v)) problems.insert(kind + " " + v);
        }
        ++watched;
        continue;
      }
      std::string verb = engine::GetString(*j, {"verb"});
      if (verb == "importImage") {
        if (!Allows(rules, "image.openshift.io", "imagestreamimports", "create")) problems.insert("importImage");
        ++writes;
        continue;
      }
      auto it = plurals.find({group, kind});
      if (it == plurals.end()) {
        problems.insert(entry.path().filename().string() + ": " + verb + " of undeclared " + group + "/" + kind);
        continue;
      }
      std::string resource = it->second, rbac_verb = verb;
      if (verb == "updateStatus") {
        resource += "/status";
        rbac_verb = "update";
      } else if (verb == "patch") {
        rbac_verb = "patch";
      }
      if (!Allows(rules, group, resource, rbac_verb)) problems.insert(kind + " " + verb);
      ++writes;
    }
  }
  EXPECT_TRUE(problems.empty()) << [&] {
    std::string all;
    for (const auto& p : problems) all += p + "\n";
    return all;
  }();
  EXPECT_GT(writes, 500);
  EXPECT_GT(watched, 500);
}

}  // namespace
}  // namespace recon::cli
