// Geneva logging copies its certificate and key from the Secret
// openshift-azure-operator/cluster into openshift-azure-logging/certificates.
// Reducers only see redacted markers; run through the sim runner (what
// `recon sim` runs) the Secret written into the simulated cluster must carry
// the real values, while every byte of the store directory holds none of
// them. When this process cannot resolve a marker, the write is refused with
// a failed ActionResult: Geneva reports Degraded and retries with backoff,
// and a replay of the log recomputes exactly the recorded actions.
// The alertmanager webhook edits a Secret full of credentials it may not
// see: it works on the Secret view the redactor leaves (receiver names,
// the operator's own URL), and the cluster gets every credential back.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "adapters/sim/runner.h"
#include "base/strings.h"
#include "cli/domains.h"
#include "domains/aro/alert_webhook.h"
#include "engine/engine.h"
#include "engine/jsonl_writer.h"
#include "engine/replay.h"
#include "engine/yaml_json.h"
#include "records/codec.h"
#include "runtime/redact.h"
#include "runtime/secret_table.h"
#include "store/rocksdb_store.h"
#include "tests/store/test_util.h"

namespace recon::aro {
namespace {

using engine::Json;

constexpr int64_t kSec = 1'000'000'000;
constexpr char kCert[] = "-----BEGIN CERTIFICATE-----\nPLANTED-gcs-cert-4b1d\n-----END CERTIFICATE-----\n";
constexpr char kKey[] = "-----BEGIN PRIVATE KEY-----\nPLANTED-gcs-key-4b1e\n-----END PRIVATE KEY-----\n";

std::string B64(std::string_view s) { return absl::Base64Escape(Av(s)); }

// The checksum upstream's own reconcile put on mdsd for kCert and kKey.
std::string UpstreamSecretChecksum() {
  std::ifstream in(RECON_SOURCE_DIR "/tests/domains/aro/upstream/geneva_objects.json");
  std::stringstream ss;
  ss << in.rdbuf();
  auto objects = engine::ParseJson(ss.str());
  EXPECT_TRUE(objects.ok());
  if (!objects.ok()) return "";
  for (const Json& o : *objects) {
    if (engine::GetString(o, {"kind"}) == "DaemonSet") {
      return engine::GetString(
          o, {"spec", "template", "metadata", "annotations", "checksum/secret-certificates"});
    }
  }
  return "";
}

// aro-sp-rotated's Cluster with only Geneva logging on, plus what Geneva
// reads: the certificates Secret, the privileged SCC, the ClusterVersion,
// listed before the Cluster so its first reconcile finds them.
sim::Scenario GenevaScenario() {
  auto s = sim::LoadScenario(RECON_SOURCE_DIR "/examples/scenarios/aro-sp-rotated.json");
  EXPECT_TRUE(s.ok()) << s.status();
  if (!s.ok()) return {};
  sim::Scenario out = *s;
  out.name = "aro-geneva-secret";
  out.edits.clear();
  out.probes.clear();
  for (Json& o : out.objects) {
    if (o.value("kind", "") != "Cluster") continue;
    Json& flags = o["spec"]["operatorflags"];
    flags["aro.checker.enabled"] = "false";
    flags["aro.genevalogging.enabled"] = "true";
  }
  std::vector<Json> inputs;
  inputs.push_back({{"apiVersion", "v1"},
                    {"kind", "Secret"},
                    {"metadata", {{"name", "cluster"}, {"namespace", "openshift-azure-operator"}}},
                    {"data", {{"gcscert.pem", B64(kCert)}, {"gcskey.pem", B64(kKey)}}}});
  inputs.push_back({{"apiVersion", "security.openshift.io/v1"},
                    {"kind", "SecurityContextConstraints"},
                    {"metadata", {{"name", "privileged"}}},
                    {"allowPrivilegedContainer", true},
                    {"users", Json::array({"system:admin"})},
                    {"groups", Json::array({"system:cluster-admins"})}});
  inputs.push_back(
      {{"apiVersion", "config.openshift.io/v1"},
       {"kind", "ClusterVersion"},
       {"metadata", {{"name", "version"}}},
       {"status", {{"history", Json::array({{{"state", "Completed"}, {"version", "4.16.3"}}})}}}});
  out.objects.insert(out.objects.begin(), inputs.begin(), inputs.end());
  return out;
}

struct Run {
  std::unique_ptr<sim::Simulator> sim;
  std::unique_ptr<engine::Engine> engine;
  std::unique_ptr<store::RocksDbStore> st;
  sim::RunSummary summary;

  const Json* Get(std::string_view group, std::string_view kind, std::string_view ns,
                  std::string_view name) const {
    return sim->objects().Get(
        engine::ObjectKey{std::string(group), std::string(kind), std::string(ns), std::string(name)});
  }
  std::string Condition(std::string_view type, std::string_view field = "status") const {
    const Json* cluster = Get("aro.openshift.io", "Cluster", "", "cluster");
    if (cluster == nullptr) return "<no cluster>";
    for (const Json& c : engine::Path(*cluster, {"status", "conditions"}))
      if (engine::GetString(c, {"type"}) == type) return engine::GetString(c, {field});
    return "<no condition>";
  }
};

// As `recon sim --store DIR` runs it: the store's own key.
std::unique_ptr<Run> RunIt(const sim::Scenario& scenario, const std::string& dir, bool until_converged,
                           int64_t max_time_ns, std::shared_ptr<runtime::SecretTable> table = nullptr) {
  auto run = std::make_unique<Run>();
  run->sim = std::make_unique<sim::Simulator>(scenario);
  auto engine = cli::MakeEngine("aro", {});
  EXPECT_TRUE(engine.ok()) << engine.status();
  auto st = store::RocksDbStore::Open(dir);
  EXPECT_TRUE(st.ok()) << st.status();
  auto redactor = runtime::Redactor::ForStore(dir);
  EXPECT_TRUE(redactor.ok()) << redactor.status();
  if (!engine.ok() || !st.ok() || !redactor.ok()) return nullptr;
  run->engine = std::move(*engine);
  run->st = std::move(*st);
  sim::RunOptions opts;
  opts.until_converged = until_converged;
  opts.max_time_ns = max_time_ns;
  opts.options = scenario.options;
  opts.redactor = std::make_shared<const runtime::Redactor>(std::move(*redactor));
  opts.secret_table = std::move(table);
  auto summary =
      sim::RunScenario(scenario, *run->sim, *run->engine, runtime::RunOnNewLog(*run->engine, *run->st), opts);
  EXPECT_TRUE(summary.ok()) << summary.status();
  if (!summary.ok()) return nullptr;
  run->summary = *summary;
  return run;
}

std::vector<records::ActionRecord> Recorded(store::EventStore& st) {
  std::vector<records::ActionRecord> out;
  auto it = st.ReadActions(0, store::kEndOfLog);
  EXPECT_TRUE(it.ok());
  for (; it.ok() && (*it)->Valid(); (*it)->Next()) {
    auto a = records::DecodeAction((*it)->payload());
    EXPECT_TRUE(a.ok());
    if (a.ok()) out.push_back(*a);
  }
  return out;
}

std::vector<records::EventRecord> Events(store::EventStore& st) {
  std::vector<records::EventRecord> out;
  auto it = st.ReadEvents(1, store::kEndOfLog);
  EXPECT_TRUE(it.ok());
  for (; it.ok() && (*it)->Valid(); (*it)->Next()) {
    auto e = records::DecodeEvent((*it)->payload());
    EXPECT_TRUE(e.ok());
    if (e.ok()) out.push_back(*e);
  }
  return out;
}

// A fresh engine's replay of the store gives exactly the recorded actions.
void ExpectReplayIdentical(Run& run) {
  std::vector<std::string> recorded;
  for (const auto& a : Recorded(*run.st)) recorded.push_back(engine::ActionToJsonl(a));
  auto fresh = cli::MakeEngine("aro", {});
  ASSERT_TRUE(fresh.ok());
  std::vector<std::string> replayed;
  ASSERT_TRUE(engine::ReplayStore(
                  **fresh, *run.st, store::kEndOfLog,
                  [&](const records::ActionRecord& a) { replayed.push_back(engine::ActionToJsonl(a)); },
                  /*record=*/false)
                  .ok());
  EXPECT_EQ(replayed, recorded);
}

std::string AllBytes(const std::string& dir) {
  std::string all;
  for (const auto& f : std::filesystem::recursive_directory_iterator(dir)) {
    if (!f.is_regular_file()) continue;
    std::ifstream in(f.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    all += ss.str();
  }
  return all;
}

void ExpectNoPlanted(const std::string& where, std::string_view bytes) {
  for (const std::string& v : {std::string("PLANTED-gcs"), B64(kCert), B64(kKey)})
    EXPECT_EQ(bytes.find(v), std::string::npos) << where << " holds " << v;
}

TEST(AroGenevaSecret, CertificatesReachTheClusterNotTheLog) {
  store::testing::TempDir tmp;
  const std::string dir = tmp.Sub("store");
  {
    auto run = RunIt(GenevaScenario(), dir, /*until_converged=*/true, 3600 * kSec);
    ASSERT_NE(run, nullptr);
    EXPECT_TRUE(run->summary.converged);

    // The simulated cluster got the real certificate and key.
    const Json* certs = run->Get("", "Secret", "openshift-azure-logging", "certificates");
    ASSERT_NE(certs, nullptr);
    EXPECT_EQ(engine::GetString(*certs, {"data", "gcscert.pem"}), B64(kCert));
    EXPECT_EQ(engine::GetString(*certs, {"data", "gcskey.pem"}), B64(kKey));
    const Json* mdsd = run->Get("apps", "DaemonSet", "openshift-azure-logging", "mdsd");
    ASSERT_NE(mdsd, nullptr);
    // Its checksum of them, computed by the redactor before they were
    // hidden, is the one upstream's code computes for the same bytes
    // (upstream/geneva_objects.json holds its DaemonSet for them).
    EXPECT_EQ(engine::GetString(
                  *mdsd, {"spec", "template", "metadata", "annotations", "checksum/secret-certificates"}),
              UpstreamSecretChecksum());
    EXPECT_EQ(run->Condition("GenevaLoggingControllerDegraded"), "False");
    EXPECT_EQ(run->sim->stats().results_failed.size(), 0u);

    // The log: the create carries markers, and so does the Secret observed back.
    bool create_seen = false;
    for (const auto& a : Recorded(*run->st)) {
      ExpectNoPlanted("a recorded action", a.body);
      if (a.verb == "create" && a.object.kind == "Secret" && a.object.name == "certificates") {
        create_seen = true;
        EXPECT_TRUE(engine::GetString(*engine::ParseJson(a.body), {"data", "gcscert.pem"})
                        .starts_with(runtime::kRedactedPrefix))
            << a.body;
      }
    }
    EXPECT_TRUE(create_seen);
    bool observed = false;
    for (const auto& e : Events(*run->st)) {
      ExpectNoPlanted("a logged event", e.body);
      if (e.object.kind == "Secret" && e.object.name == "certificates") observed = true;
    }
    EXPECT_TRUE(observed);
    ExpectReplayIdentical(*run);
  }
  std::string bytes = AllBytes(dir);
  ASSERT_NE(bytes.find("openshift-azure-logging"), std::string::npos);  // the search sees the log
  ExpectNoPlanted("the store directory", bytes);
}

// alertmanager-main as a cluster holds it: SMTP credentials, a bearer
// token, a receiver URL with a token, beside the `null` and `Default`
// receivers the webhook controller points at the operator.
constexpr char kAlertmanagerYaml[] = R"(global:
  smtp_auth_password: PLANTED-smtp-5f1
  smtp_smarthost: smtp.example.com:587
receivers:
- name: "null"
- name: Default
- name: pager
  webhook_configs:
  - url: https://hooks.example.com/services/PLANTED-hook-5f2
    http_config:
      bearer_token: PLANTED-bearer-5f3
route:
  receiver: Default
)";

sim::Scenario WebhookScenario() {
  sim::Scenario out = GenevaScenario();
  out.name = "aro-webhook-secret";
  for (Json& o : out.objects) {
    if (o.value("kind", "") != "Cluster") continue;
    o["spec"]["operatorflags"]["aro.genevalogging.enabled"] = "false";
    o["spec"]["operatorflags"]["aro.alertwebhook.enabled"] = "true";
  }
  Json secret = {{"apiVersion", "v1"},
                 {"kind", "Secret"},
                 {"metadata", {{"name", "alertmanager-main"}, {"namespace", "openshift-monitoring"}}},
                 {"data", {{"alertmanager.yaml", B64(kAlertmanagerYaml)}}}};
  out.objects.push_back(secret);  // after the Cluster: only its own events trigger the controller
  return out;
}

// Every string of `body`, and the decoded bytes of each `data` value.
void ExpectNoAlertmanagerCredential(const std::string& where, const std::string& body) {
  std::string all = body;
  if (auto j = engine::ParseJson(body);
      j.ok() && j->is_object() && j->contains("data") && (*j)["data"].is_object()) {
    for (const auto& v : (*j)["data"])
      if (std::string plain; v.is_string() && absl::Base64Unescape(v.get<std::string>(), &plain))
        all += plain;
  }
  for (const char* v : {"PLANTED-smtp-5f1", "PLANTED-hook-5f2", "PLANTED-bearer-5f3"})
    EXPECT_EQ(all.find(v), std::string::npos) << where << " holds " << v;
  EXPECT_EQ(all.find(B64(kAlertmanagerYaml)), std::string::npos) << where;
}

TEST(AroAlertWebhookSecret, ReceiversSetLiveAndEveryCredentialKept) {
  store::testing::TempDir tmp;
  const std::string dir = tmp.Sub("store");
  auto run = RunIt(WebhookScenario(), dir, /*until_converged=*/true, 3600 * kSec);
  ASSERT_NE(run, nullptr);
  EXPECT_TRUE(run->summary.converged);

  const Json* secret = run->Get("", "Secret", "openshift-monitoring", "alertmanager-main");
  ASSERT_NE(secret, nullptr);
  EXPECT_FALSE(secret->contains("reconViews"));  // the log's, never the cluster's
  std::string text;
  ASSERT_TRUE(absl::Base64Unescape(engine::GetString(*secret, {"data", "alertmanager.yaml"}), &text));
  auto config = engine::ParseYaml(text);
  ASSERT_TRUE(config.ok()) << config.status();
  Json want = *engine::ParseYaml(kAlertmanagerYaml);
  ASSERT_TRUE(FixAlertmanagerConfig(want));
  EXPECT_EQ(engine::EmitYaml(*config), engine::EmitYaml(want)) << text;
  EXPECT_EQ(engine::GetString((*config)["receivers"][0]["webhook_configs"][0], {"url"}), kWebhookUrl);
  EXPECT_EQ(engine::GetString((*config)["global"], {"smtp_auth_password"}), "PLANTED-smtp-5f1");

  int updates = 0;
  for (const auto& a : Recorded(*run->st)) {
    if (a.object.kind == "Secret" && a.object.name == "alertmanager-main" && a.verb == "update") ++updates;
    ExpectNoAlertmanagerCredential("a recorded action", a.body);
  }
  EXPECT_EQ(updates, 1);
  for (const auto& e : Events(*run->st)) ExpectNoAlertmanagerCredential("a logged event", e.body);
  ExpectReplayIdentical(*run);
  run.reset();
  ExpectNoAlertmanagerCredential("the store directory", AllBytes(dir));
}

TEST(AroGenevaSecret, UnresolvableMarkerIsRefusedAndRetriedWithBackoff) {
  store::testing::TempDir tmp;
  // A table that keeps nothing: as a process that never observed the Secret.
  // Retries wait on timers, which count as idle: a fixed 10 minutes.
  auto empty = std::make_shared<runtime::SecretTable>(0, 0);
  auto run = RunIt(GenevaScenario(), tmp.Sub("store"), /*until_converged=*/false, 10 * 60 * kSec, empty);
  ASSERT_NE(run, nullptr);

  // Nothing was written with a marker; everything else was created.
  EXPECT_EQ(run->Get("", "Secret", "openshift-azure-logging", "certificates"), nullptr);
  EXPECT_NE(run->Get("apps", "DaemonSet", "openshift-azure-logging", "mdsd"), nullptr);
  EXPECT_NE(run->Get("", "ConfigMap", "openshift-azure-logging", "fluent-config"), nullptr);
  EXPECT_EQ(run->Condition("GenevaLoggingControllerDegraded"), "True");
  // The write's error as it is, as upstream's condition carries it.
  EXPECT_TRUE(run->Condition("GenevaLoggingControllerDegraded", "message")
                  .starts_with("create Secret openshift-azure-logging/certificates: field /data/gcscert.pem: "
                               "secret value not available in this process"))
      << run->Condition("GenevaLoggingControllerDegraded", "message");

  // Each refusal is a failed ActionResult in the log; the create is retried
  // on the backoff timer, not in a hot loop.
  int refused = 0;
  for (const auto& e : Events(*run->st)) {
    if (e.type == records::EventType::kActionResult && !e.action_result.ok) {
      ++refused;
      EXPECT_NE(e.action_result.error.find("re-read from the cluster on the next observation"),
                std::string::npos);
    }
  }
  int creates = 0;
  for (const auto& a : Recorded(*run->st))
    creates += a.verb == "create" && a.object.kind == "Secret" && a.object.name == "certificates";
  EXPECT_EQ(refused, creates);
  EXPECT_GE(creates, 5);
  EXPECT_LE(creates, 25);  // 5 ms doubling to the 10m the run lasts
  ExpectReplayIdentical(*run);
}

}  // namespace
}  // namespace recon::aro
