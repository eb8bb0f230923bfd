// Geneva logging beside the real ARO operator's own output. upstream/
// holds the objects ARO-RP's genevalogging reconcile (bf96a7527b) hands its
// dynamic helper for upstream/geneva_inputs.json, made by running upstream's
// code (upstream/dump.sh). recon, given the same inputs as its store holds
// them (redacted, with the certificates view), must create exactly those
// objects, and, given upstream's objects as a server holds them, must write
// nothing: an acting recon never undoes an upstream write.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/domains.h"
#include "engine/engine.h"
#include "engine/jsonl_reader.h"
#include "runtime/redact.h"

namespace recon::aro {
namespace {

using engine::Json;

Json Load(const std::string& name) {
  std::ifstream in(std::string(RECON_SOURCE_DIR "/tests/domains/aro/upstream/") + name);
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = engine::ParseJson(ss.str());
  EXPECT_TRUE(j.ok()) << name << ": " << j.status();
  return j.ok() ? *j : Json::array();
}

// What Go's encoding of a typed object adds that is not a field written:
// `creationTimestamp: null` at any depth and the zero status.
void DropGoZeros(Json& j) {
  if (j.is_object()) {
    auto ts = j.find("creationTimestamp");
    if (ts != j.end() && ts->is_null()) j.erase(ts);
    for (auto& v : j) DropGoZeros(v);
  } else if (j.is_array()) {
    for (auto& v : j) DropGoZeros(v);
  }
}

// Key order aside (recon writes its own, fixed order; Go sorts map keys).
Json Sorted(const Json& j) {
  if (j.is_array()) {
    Json out = Json::array();
    for (const Json& v : j) out.push_back(Sorted(v));
    return out;
  }
  if (!j.is_object()) return j;
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  std::sort(keys.begin(), keys.end());
  Json out = Json::object();
  for (const std::string& k : keys) out[k] = Sorted(j[k]);
  return out;
}

std::vector<Json> UpstreamObjects() {
  std::vector<Json> out;
  for (Json o : Load("geneva_objects.json")) {
    DropGoZeros(o);
    o.erase("status");
    out.push_back(std::move(o));
  }
  return out;
}

// `o` as a real API server returns it after the create: server metadata
// and the defaults the core and apps types get.
Json AsServerHolds(Json o, int n) {
  o["metadata"]["uid"] = "uid-upstream-" + std::to_string(n);
  o["metadata"]["resourceVersion"] = std::to_string(100 + n);
  o["metadata"]["creationTimestamp"] = "2026-11-21T10:00:02Z";
  std::string kind = o["kind"];
  if (kind == "Namespace") {
    o["metadata"]["labels"]["kubernetes.io/metadata.name"] = o["metadata"]["name"];
    o["spec"]["finalizers"] = Json::array({"kubernetes"});
    o["status"] = {{"phase", "Active"}};
  } else if (kind == "Secret") {
    o["type"] = "Opaque";
  } else if (kind == "DaemonSet") {
    o["metadata"]["generation"] = 1;
    o["metadata"]["annotations"]["deprecated.daemonset.template.generation"] = "1";
    Json& spec = o["spec"];
    spec["revisionHistoryLimit"] = 10;
    spec["updateStrategy"] = {{"type", "RollingUpdate"},
                              {"rollingUpdate", {{"maxSurge", 0}, {"maxUnavailable", 1}}}};
    Json& pod = spec["template"]["spec"];
    pod["restartPolicy"] = "Always";
    pod["terminationGracePeriodSeconds"] = 30;
    pod["dnsPolicy"] = "ClusterFirst";
    pod["schedulerName"] = "default-scheduler";
    pod["securityContext"] = Json::object();
    for (Json& c : pod["containers"]) {
      c["imagePullPolicy"] = "IfNotPresent";
      c["terminationMessagePath"] = "/dev/termination-log";
      c["terminationMessagePolicy"] = "File";
    }
    for (Json& v : pod["volumes"]) {
      if (v.contains("hostPath")) v["hostPath"]["type"] = "";
      if (v.contains("configMap")) v["configMap"]["defaultMode"] = 420;
      if (v.contains("secret")) v["secret"]["defaultMode"] = 420;
    }
    o["status"] = {{"currentNumberScheduled", 3}, {"desiredNumberScheduled", 3}, {"numberReady", 3},
                   {"numberAvailable", 3},        {"numberMisscheduled", 0},     {"observedGeneration", 1},
                   {"updatedNumberScheduled", 3}};
  }
  return o;
}

class AroGenevaUpstream : public ::testing::Test {
 protected:
  void SetUp() override {
    auto e = cli::MakeEngine("aro", {});
    ASSERT_TRUE(e.ok()) << e.status();
    engine_ = std::move(*e);
    redactor_.AddDomainRulesOf(engine_->reducers());
    for (const Json& o : Load("geneva_inputs.json")) {
      if (o["kind"] == "Cluster") {
        cluster_ = o;
      } else {
        inputs_.push_back(o);
      }
    }
    cluster_["metadata"]["resourceVersion"] = "7";
  }

  // One observation, redacted as the runtime redacts it before the log.
  std::vector<records::ActionRecord> Observe(std::string_view type, const Json& object) {
    Json line = {
        {"time", "2026-11-21T10:00:0" + std::to_string(seq_ % 10) + "Z"}, {"type", type}, {"object", object}};
    engine::JsonlReader reader;
    auto r = reader.ParseLine(engine::Dump(line), seq_ + 1);
    EXPECT_TRUE(r.ok()) << r.status();
    std::vector<records::ActionRecord> out;
    if (!r.ok()) return out;
    EXPECT_TRUE(redactor_.Redact(*r).ok());
    EXPECT_TRUE(engine_->Step(engine::Event::FromRecord(++seq_, *r), &out).ok());
    return out;
  }
  // `o` with its Secret values as the log holds them.
  Json Redacted(const Json& o) {
    engine::JsonlReader reader;
    auto r = reader.ParseLine(
        engine::Dump(Json{{"time", "2026-11-21T10:00:00Z"}, {"type", "Added"}, {"object", o}}), 1);
    EXPECT_TRUE(r.ok());
    EXPECT_TRUE(redactor_.Redact(*r).ok());
    return *engine::ParseJson(r->body);
  }
  // The writes of the Geneva objects among `actions`, as "verb Kind/name".
  static std::vector<std::string> GenevaWrites(const std::vector<records::ActionRecord>& actions) {
    static const std::set<std::string> kKinds = {
        "SecurityContextConstraints", "Namespace", "ConfigMap", "Secret", "ServiceAccount", "DaemonSet"};
    std::vector<std::string> out;
    for (const auto& a : actions)
      if (kKinds.count(a.object.kind)) out.push_back(a.verb + " " + a.object.kind + "/" + a.object.name);
    return out;
  }

  std::unique_ptr<engine::Engine> engine_;
  runtime::Redactor redactor_{std::string(32, 'k')};
  Json cluster_;
  std::vector<Json> inputs_;
  uint64_t seq_ = 0;
};

TEST_F(AroGenevaUpstream, CreatesExactlyWhatUpstreamCreates) {
  for (const Json& o : inputs_) EXPECT_TRUE(Observe("Added", o).empty());
  std::vector<Json> creates;
  for (const auto& a : Observe("Added", cluster_))
    if (a.verb == "create" && a.object.kind != "ClusterOperator")
      creates.push_back(*engine::ParseJson(a.body));
  std::vector<Json> upstream = UpstreamObjects();
  ASSERT_EQ(creates.size(), upstream.size());
  for (size_t i = 0; i < upstream.size(); ++i) {
    // The certificates Secret: upstream's copy of the values, as the log
    // holds it; recon's create carries the same markers.
    Json want = upstream[i]["kind"] == "Secret" ? Redacted(upstream[i]) : upstream[i];
    EXPECT_EQ(engine::Dump(Sorted(creates[i])), engine::Dump(Sorted(want)))
        << "object " << i << " (" << want["kind"] << ")";
  }
}

TEST_F(AroGenevaUpstream, WritesNothingOverUpstreamsObjects) {
  for (const Json& o : inputs_) Observe("Added", o);
  std::vector<Json> held;
  int n = 0;
  for (const Json& o : UpstreamObjects()) held.push_back(AsServerHolds(o, ++n));
  for (const Json& o : held) EXPECT_EQ(GenevaWrites(Observe("Added", o)), std::vector<std::string>{});
  EXPECT_EQ(GenevaWrites(Observe("Added", cluster_)), std::vector<std::string>{});
  // Every owned object seen again (each event reconciles), and the
  // Cluster's spec changed: still nothing to write.
  for (const Json& o : held) EXPECT_EQ(GenevaWrites(Observe("Modified", o)), std::vector<std::string>{});
  Json changed = cluster_;
  changed["metadata"]["resourceVersion"] = "8";
  changed["spec"]["operatorflags"]["aro.example"] = "x";
  EXPECT_EQ(GenevaWrites(Observe("Modified", changed)), std::vector<std::string>{});
}

TEST_F(AroGenevaUpstream, RepairsDriftBackToUpstreamsSpec) {
  for (const Json& o : inputs_) Observe("Added", o);
  std::vector<Json> upstream = UpstreamObjects();
  Json ds = AsServerHolds(upstream[5], 6);
  for (const Json& o : upstream)
    if (o["kind"] != "DaemonSet") Observe("Added", AsServerHolds(o, 1));
  Observe("Added", ds);
  Observe("Added", cluster_);
  Json drifted = ds;
  drifted["spec"]["template"]["spec"]["containers"][1]["image"] = "example.com/mdsd:latest";
  std::vector<records::ActionRecord> out = Observe("Modified", drifted);
  ASSERT_EQ(GenevaWrites(out), std::vector<std::string>{"update DaemonSet/mdsd"});
  for (const auto& a : out) {
    if (a.object.kind != "DaemonSet") continue;
    Json written = *engine::ParseJson(a.body);
    EXPECT_EQ(written["spec"]["template"]["spec"]["containers"][1]["image"],
              upstream[5]["spec"]["template"]["spec"]["containers"][1]["image"]);
    // What the server keeps of its own stays: the update is a repair, not a reset.
    EXPECT_EQ(written["metadata"]["resourceVersion"], ds["metadata"]["resourceVersion"]);
  }
}

}  // namespace
}  // namespace recon::aro
