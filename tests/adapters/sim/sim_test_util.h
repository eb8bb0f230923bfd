// Helpers shared by the simulator tests.
#ifndef RECON_TESTS_ADAPTERS_SIM_SIM_TEST_UTIL_H_
#define RECON_TESTS_ADAPTERS_SIM_SIM_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "adapters/sim/scenario.h"
#include "adapters/sim/simulator.h"
#include "engine/jsonl_reader.h"

namespace recon::sim::testing {

inline constexpr int64_t kSecond = 1'000'000'000;

inline Scenario MustParse(std::string_view text) {
  auto s = ParseScenario(text, "test");
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : Scenario{};
}

inline records::ActionRecord ObjectAction(uint64_t cause, uint32_t index, std::string_view verb,
                                          const engine::Json& obj) {
  records::ActionRecord a;
  a.cause_seq = cause;
  a.index = index;
  a.domain = "test";
  a.verb = verb;
  engine::SplitApiVersion(engine::GetString(obj, {"apiVersion"}), &a.object.group, &a.object.version);
  a.object.kind = engine::GetString(obj, {"kind"});
  a.object.ns = engine::GetString(obj, {"metadata", "namespace"});
  a.object.name = engine::GetString(obj, {"metadata", "name"});
  a.body = engine::Dump(obj);
  return a;
}

// Runs the simulator until nothing is queued before `until_ns` (absolute).
inline std::vector<records::EventRecord> Drain(Simulator& sim, int64_t until_ns) {
  std::vector<records::EventRecord> out;
  while (auto next = sim.NextTime()) {
    if (*next > until_ns) break;
    for (auto& e : sim.Step()) out.push_back(std::move(e));
  }
  return out;
}

inline const records::EventRecord* FindResult(const std::vector<records::EventRecord>& events,
                                              std::string_view id) {
  for (const auto& e : events) {
    if (e.type == records::EventType::kActionResult && e.action_result.action == id) return &e;
  }
  return nullptr;
}

}  // namespace recon::sim::testing

#endif  // RECON_TESTS_ADAPTERS_SIM_SIM_TEST_UTIL_H_
