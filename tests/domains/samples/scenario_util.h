// Runs a scenario log (tests/scenarios/samples/<name>.jsonl) through an
// engine with the samples domain, as `recon replay`/`explain` do.
#ifndef RECON_TESTS_DOMAINS_SAMPLES_SCENARIO_UTIL_H_
#define RECON_TESTS_DOMAINS_SAMPLES_SCENARIO_UTIL_H_

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli/domains.h"
#include "engine/engine.h"
#include "engine/jsonl_reader.h"
#include "records/record.h"

namespace recon::samples::testing {

inline std::vector<records::EventRecord> ScenarioEvents(const std::string& name) {
  std::string path = std::string(RECON_SOURCE_DIR) + "/tests/scenarios/samples/" + name + ".jsonl";
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  engine::JsonlReader reader;
  auto parsed = reader.ParseAll(buf.str(), path);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  std::vector<records::EventRecord> out;
  if (parsed.ok())
    for (auto& p : *parsed) out.push_back(std::move(p.event));
  return out;
}

inline std::unique_ptr<engine::Engine> SamplesEngine(const std::vector<std::string>& sets = {}) {
  auto e = cli::MakeEngine("samples", sets);
  EXPECT_TRUE(e.ok()) << e.status();
  return e.ok() ? std::move(*e) : nullptr;
}

}  // namespace recon::samples::testing

#endif  // RECON_TESTS_DOMAINS_SAMPLES_SCENARIO_UTIL_H_
