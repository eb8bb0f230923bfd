// Fuzzes the JSONL event reader (engine/jsonl_reader.h): any bytes must give
// events or a "line N: ..." error. An accepted event must also survive the
// store's encoding unchanged, since import appends exactly what was parsed.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "engine/jsonl_reader.h"
#include "records/codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  static auto* reader = new recon::engine::JsonlReader();
  auto parsed = reader->ParseAll(input, "fuzz");
  if (!parsed.ok()) return 0;
  uint64_t seq = 0;
  for (const auto& line : *parsed) {
    ++seq;
    std::string payload = recon::records::EncodeEventPayload(seq, line.event);
    uint64_t seq_out = 0;
    auto decoded = recon::records::DecodeEvent(payload, &seq_out);
    if (!decoded.ok() || seq_out != seq) abort();
    if (recon::records::EncodeEventPayload(seq, *decoded) != payload) abort();
  }
  return 0;
}
