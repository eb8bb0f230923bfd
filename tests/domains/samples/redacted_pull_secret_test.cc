// The pull-secret check (openshift_samples_invalidsecret_info
// {reason="missing_tbr_credential"}) works from the redacted Secret the
// agent stores: registry names survive redaction, credentials do not.
#include <gtest/gtest.h>

#include "absl/strings/escaping.h"
#include "base/strings.h"
#include "runtime/metrics.h"
#include "runtime/redact.h"
#include "tests/domains/samples/scenario_util.h"

namespace recon::samples {
namespace {

constexpr char kPlanted[] = "planted-tbr-credential-5e1d";

records::EventRecord PullSecret(std::string_view registry) {
  std::string config =
      recon::StrCat(R"({"auths":{")", registry, R"(":{"auth":")", absl::Base64Escape(kPlanted), R"("}}})");
  engine::JsonlReader reader;
  auto e = reader.ParseLine(
      recon::StrCat(
          R"({"time":"2026-11-21T11:00:00Z","type":"Added","object":{"apiVersion":"v1","kind":"Secret",)",
          R"("metadata":{"name":"pull-secret","namespace":"openshift-config"},)",
          R"("type":"kubernetes.io/dockerconfigjson","data":{".dockerconfigjson":")",
          absl::Base64Escape(config), R"("}}})"),
      1);
  EXPECT_TRUE(e.ok()) << e.status();
  return e.ok() ? *e : records::EventRecord{};
}

double MissingTbrAfter(records::EventRecord secret) {
  auto engine = testing::SamplesEngine();
  EXPECT_TRUE(engine);
  if (!engine) return -1;
  runtime::Redactor redactor(std::string(32, 'k'));
  auto events = testing::ScenarioEvents("bootstrap_managed");
  events.push_back(std::move(secret));
  EXPECT_TRUE(redactor.RedactAll(events).ok());
  EXPECT_EQ(events.back().body.find(absl::Base64Escape(kPlanted)), std::string::npos) << events.back().body;
  for (uint64_t seq = 1; seq <= events.size(); ++seq) {
    std::vector<records::ActionRecord> out;
    auto s = engine->Step(engine::Event::FromRecord(seq, events[seq - 1]), &out);
    EXPECT_TRUE(s.ok()) << s;
  }
  runtime::Metrics m;
  engine->reducers()[0]->ExportMetrics(engine->world(), m);
  return m.Value("openshift_samples_invalidsecret_info", {{"reason", "missing_tbr_credential"}});
}

TEST(SamplesRedactedPullSecret, TbrCredentialStillSeen) {
  EXPECT_EQ(MissingTbrAfter(PullSecret("registry.redhat.io")), 0);
}

TEST(SamplesRedactedPullSecret, OtherRegistryOnlyIsStillMissing) {
  EXPECT_EQ(MissingTbrAfter(PullSecret("quay.io")), 1);
}

}  // namespace
}  // namespace recon::samples
