// Fuzzes Engine::Restore (engine/engine.h) with every domain's reducer, as
// the agent does when it resumes from a snapshot on disk: damaged bytes must
// be an error. A snapshot that restores must snapshot and restore again to
// the same bytes (the state digest relies on that).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <vector>

#include "domains/aro/reducer.h"
#include "domains/olm/reducer.h"
#include "domains/samples/reducer.h"
#include "engine/engine.h"

namespace {

std::unique_ptr<recon::engine::Engine> NewEngine() {
  std::vector<std::unique_ptr<recon::engine::Reducer>> reducers;
  reducers.push_back(recon::samples::MakeReducer());
  reducers.push_back(recon::olm::MakeReducer());
  reducers.push_back(recon::aro::MakeReducer());
  return std::make_unique<recon::engine::Engine>(std::move(reducers));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  auto engine = NewEngine();
  if (!engine->Restore(input).ok()) return 0;
  auto snap = engine->Snapshot();
  if (!snap.ok()) return 0;
  auto again = NewEngine();
  if (!again->Restore(*snap).ok()) abort();
  auto snap2 = again->Snapshot();
  if (!snap2.ok() || *snap2 != *snap) abort();
  return 0;
}
