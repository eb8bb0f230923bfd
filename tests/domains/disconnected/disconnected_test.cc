// The DisconnectedFriendlyApp reducer's pieces: environment expansion and
// choice, the operand Deployment and its drift, options and resources; and
// determinism over every scenario (replayed twice; from a snapshot taken
// at every seq: the scenario runner).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "domains/disconnected/operand.h"
#include "domains/disconnected/operator_env.h"
#include "domains/disconnected/reducer.h"
#include "engine/engine.h"
#include "engine/jsonl_reader.h"
#include "engine/jsonl_writer.h"

namespace recon::disconnected {
namespace {

using engine::Json;

TEST(ExpandEnvRefs, KubernetesDependentVariables) {
  std::map<std::string, std::string> defined = {{"RELATED_IMAGE_FEDORA", "quay.io/fedora/fedora@sha256:ab"}};
  EXPECT_EQ(ExpandEnvRefs("$(RELATED_IMAGE_FEDORA)", defined), "quay.io/fedora/fedora@sha256:ab");
  EXPECT_EQ(ExpandEnvRefs("x-$(RELATED_IMAGE_FEDORA)-y", defined), "x-quay.io/fedora/fedora@sha256:ab-y");
  EXPECT_EQ(ExpandEnvRefs("$(UNDEFINED)", defined), "$(UNDEFINED)");  // left as written
  EXPECT_EQ(ExpandEnvRefs("$$(RELATED_IMAGE_FEDORA)", defined), "$(RELATED_IMAGE_FEDORA)");  // escaped
  EXPECT_EQ(ExpandEnvRefs("a$b$", defined), "a$b$");
  EXPECT_EQ(ExpandEnvRefs("$(unclosed", defined), "$(unclosed");
}

TEST(ChooseImage, SetEvenEmptyWinsOverFallback) {
  OperatorEnv env;
  env.source = "test";
  EXPECT_EQ(ChooseImage(env, "DFA_BUSYBOX_IMAGE", "docker.io/busybox:latest").image,
            "docker.io/busybox:latest");
  env.vars["DFA_BUSYBOX_IMAGE"] = "";
  ImageChoice c = ChooseImage(env, "DFA_BUSYBOX_IMAGE", "docker.io/busybox:latest");
  EXPECT_TRUE(c.from_env);  // os.LookupEnv semantics: set means set
  EXPECT_EQ(c.image, "");
}

engine::Object MakeInstance(const std::string& body) {
  return engine::Object({"tools.opdev.io", "DisconnectedFriendlyApp", "apps", "demo"}, "v1alpha1", body, 1,
                        0);
}

TEST(Operand, DesiredDeploymentAndDrift) {
  engine::Object inst = MakeInstance(
      R"({"apiVersion":"tools.opdev.io/v1alpha1","kind":"DisconnectedFriendlyApp","metadata":{"name":"demo","namespace":"apps","uid":"u1"},"spec":{"sleeperReplicas":2}})");
  const Operand& busybox = Operands()[0];
  const Operand& sleeper = Operands()[1];
  Json d = DesiredDeployment(inst, sleeper, "img@sha256:1");
  EXPECT_EQ(d["metadata"]["name"], "sleeper-demo");
  EXPECT_EQ(d["spec"]["replicas"], 2);
  EXPECT_EQ(DesiredDeployment(inst, busybox, "x")["spec"]["replicas"], 1);  // default
  EXPECT_EQ(d["metadata"]["ownerReferences"][0]["uid"], "u1");
  EXPECT_EQ(ContainerImage(d, "sleeper"), "img@sha256:1");
  EXPECT_TRUE(Drift(d, d).empty());

  // Server defaults and foreign labels/annotations are not drift.
  Json observed = d;
  observed["metadata"]["labels"]["extra"] = "1";
  observed["metadata"]["annotations"] = Json{{"a", "b"}};
  observed["spec"]["template"]["spec"]["containers"][0]["terminationMessagePath"] = "/dev/termination-log";
  observed["spec"]["revisionHistoryLimit"] = 10;
  EXPECT_TRUE(Drift(observed, d).empty());

  observed["spec"]["template"]["spec"]["containers"][0]["image"] = "other:1";
  observed["spec"]["replicas"] = 5;
  auto drift = Drift(observed, d);
  ASSERT_EQ(drift.size(), 2u);
  EXPECT_EQ(drift[0], "replicas 5 -> 2");
  EXPECT_EQ(drift[1], "image other:1 -> img@sha256:1");
  Json merged = MergeForUpdate(observed, d);
  EXPECT_TRUE(Drift(merged, d).empty());
  EXPECT_EQ(merged["metadata"]["labels"]["extra"], "1");  // kept
  EXPECT_EQ(merged["spec"]["template"]["spec"]["containers"][0]["terminationMessagePath"],
            "/dev/termination-log");

  // A sidecar someone added: the container list is replaced, as upstream.
  observed["spec"]["template"]["spec"]["containers"].push_back(Json{{"name", "sidecar"}});
  EXPECT_EQ(Drift(observed, d).back(), "containers [sleeper,sidecar] -> [sleeper]");
  EXPECT_EQ(MergeForUpdate(observed, d)["spec"]["template"]["spec"]["containers"].size(), 1u);

  // Another owner: adopted (upstream's SetControllerReference + merge).
  Json foreign = d;
  foreign["metadata"]["ownerReferences"][0]["uid"] = "u2";
  EXPECT_EQ(Drift(foreign, d).front(), "controller ownerReference missing");
}

TEST(Reducer, OptionsAndResources) {
  auto r = MakeReducer();
  EXPECT_EQ(r->Domain(), "disconnected");
  EXPECT_TRUE(r->SetOption("operatorDeployment", "openshift-operators/op").ok());
  EXPECT_TRUE(r->SetOption("operatorDeployment", "").ok());
  auto bad = r->SetOption("operatorDeployment", "no-slash");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.message()).find("expected NAMESPACE/NAME"), std::string::npos);
  EXPECT_FALSE(r->SetOption("operatorDeployment", "a/b/c").ok());
  EXPECT_FALSE(r->SetOption("operatorContainer", "").ok());
  EXPECT_FALSE(r->SetOption("nope", "1").ok());
  auto res = r->Describe().resources;
  ASSERT_EQ(res.size(), 2u);
  EXPECT_EQ(res[0].type.plural, "disconnectedfriendlyapps");
  EXPECT_EQ(res[0].type.short_names, std::vector<std::string>{"dfa"});
  EXPECT_TRUE(res[0].type.status_subresource);
  EXPECT_EQ(res[0].status_verbs, std::vector<std::string>{"update"});
  EXPECT_EQ(res[1].type.ApiVersion(), "apps/v1");
  EXPECT_EQ(res[1].verbs, (std::vector<std::string>{"get", "list", "watch", "create", "update"}));
}

struct Scenario {
  std::string name;
  std::vector<engine::ParsedLine> lines;
  std::vector<std::pair<std::string, std::string>> sets;
};

std::vector<Scenario> LoadScenarios() {
  std::vector<Scenario> out;
  std::filesystem::path dir = std::filesystem::path(RECON_SOURCE_DIR) / "tests/scenarios/disconnected";
  std::vector<std::filesystem::path> paths;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".jsonl") paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) {
    std::ifstream in(p);
    std::stringstream data;
    data << in.rdbuf();
    Scenario s;
    s.name = p.stem().string();
    engine::JsonlReader reader;
    auto lines = reader.ParseAll(data.str(), p.string());
    EXPECT_TRUE(lines.ok()) << lines.status();
    if (!lines.ok()) continue;
    s.lines = std::move(*lines);
    std::filesystem::path args = p;
    args.replace_extension(".args");
    std::ifstream ain(args);
    std::string line;
    bool next_is_set = false;
    while (std::getline(ain, line)) {
      if (next_is_set) {
        size_t eq = line.find('=');
        s.sets.emplace_back(line.substr(0, eq), line.substr(eq + 1));
      }
      next_is_set = line == "--set";
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<std::string> Replay(const Scenario& s) {
  std::vector<std::unique_ptr<engine::Reducer>> r;
  r.push_back(MakeReducer());
  engine::Engine engine(std::move(r));
  for (const auto& [k, v] : s.sets) EXPECT_TRUE(engine.SetOption(k, v, true).ok()) << k;
  std::vector<std::string> out;
  std::vector<records::ActionRecord> actions;
  for (size_t i = 0; i < s.lines.size(); ++i) {
    actions.clear();
    engine::Event e = engine::Event::FromRecord(i + 1, s.lines[i].event);
    EXPECT_TRUE(engine.Step(e, &actions).ok());
    for (const auto& a : actions) out.push_back(engine::ActionToJsonl(a));
  }
  return out;
}

// (From a snapshot after every seq: the scenario runner, for every scenario.)
TEST(DisconnectedDeterminism, TwiceByteIdentical) {
  auto scenarios = LoadScenarios();
  ASSERT_GE(scenarios.size(), 9u);
  for (const auto& s : scenarios) {
    auto straight = Replay(s);
    ASSERT_FALSE(straight.empty()) << s.name;
    EXPECT_EQ(Replay(s), straight) << s.name;
  }
}

// The reducer reads the operator environment from the log, never from the
// process: the variables set here must not change a thing.
TEST(DisconnectedDeterminism, ProcessEnvironmentIsIgnored) {
  auto scenarios = LoadScenarios();
  const Scenario* fallback = nullptr;
  for (const auto& s : scenarios)
    if (s.name == "fallback_images") fallback = &s;
  ASSERT_NE(fallback, nullptr);
  auto before = Replay(*fallback);
  ::setenv("DFA_BUSYBOX_IMAGE", "process.example.com/busybox:bad", 1);
  ::setenv("DFA_SLEEPER_IMAGE", "process.example.com/sleeper:bad", 1);
  auto after = Replay(*fallback);
  ::unsetenv("DFA_BUSYBOX_IMAGE");
  ::unsetenv("DFA_SLEEPER_IMAGE");
  EXPECT_EQ(before, after);
  ASSERT_FALSE(after.empty());
  EXPECT_NE(after[0].find("docker.io/busybox:latest"), std::string::npos);
  for (const auto& a : after) EXPECT_EQ(a.find("process.example.com"), std::string::npos);
}

}  // namespace
}  // namespace recon::disconnected
