// An aro engine a test feeds one JSONL line at a time, as built in the
// test, and the Cluster of a scenario to start from.
#ifndef RECON_TESTS_DOMAINS_ARO_ARO_LINES_H_
#define RECON_TESTS_DOMAINS_ARO_ARO_LINES_H_

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cli/domains.h"
#include "engine/engine.h"
#include "engine/jsonl_reader.h"

namespace recon::aro::testing {

class AroLines {
 public:
  AroLines() {
    auto e = cli::MakeEngine("aro", {});
    EXPECT_TRUE(e.ok()) << e.status();
    if (e.ok()) engine_ = std::move(*e);
  }

  // The actions of one event line (DESIGN.md's JSONL), given the next seq.
  std::vector<records::ActionRecord> Line(const engine::Json& event) {
    engine::JsonlReader reader;
    auto r = reader.ParseLine(engine::Dump(event), seq_ + 1);
    EXPECT_TRUE(r.ok()) << r.status();
    std::vector<records::ActionRecord> out;
    if (r.ok() && engine_) {
      EXPECT_TRUE(engine_->Step(engine::Event::FromRecord(++seq_, *r), &out).ok());
    }
    return out;
  }
  uint64_t seq() const { return seq_; }

  // The Cluster of internet_all_ok (the checkers on), with a uid.
  static engine::Json ScenarioCluster() {
    std::ifstream in(RECON_SOURCE_DIR "/tests/scenarios/aro/internet_all_ok.jsonl");
    std::string first;
    EXPECT_TRUE(std::getline(in, first));
    auto line = engine::ParseJson(first);
    EXPECT_TRUE(line.ok());
    if (!line.ok()) return engine::Json::object();
    engine::Json cluster = (*line)["object"];
    cluster["metadata"]["uid"] = "cluster-uid";
    return cluster;
  }

 private:
  std::unique_ptr<engine::Engine> engine_;
  uint64_t seq_ = 0;
};

}  // namespace recon::aro::testing

#endif  // RECON_TESTS_DOMAINS_ARO_ARO_LINES_H_
