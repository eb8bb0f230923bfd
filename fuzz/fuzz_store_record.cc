// Fuzzes the store's record decoder (store/codec.h). A damaged frame or
// payload must be an error, never a crash. What does decode must be stable:
// re-encoding it and decoding again gives the same bytes, so a record that
// reads back cannot silently change meaning on the next copy. The same for
// the runtime's unanswered-actions checkpoint (runtime/unanswered.h).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "engine/event.h"
#include "records/codec.h"
#include "runtime/unanswered.h"

namespace rec = recon::records;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);

  // The frame: the checksum must reject anything the fuzzer made up, and a
  // valid frame moved to another key.
  if (auto p = rec::Unframe(rec::EventKey(1), input, "event 1"); p.ok()) {
    if (p->size() + rec::kFrameHeader != input.size()) abort();
  }
  std::string framed = rec::Frame(rec::EventKey(7), input);
  auto back = rec::Unframe(rec::EventKey(7), framed, "event 7");
  if (!back.ok() || *back != input) abort();
  if (rec::Unframe(rec::EventKey(8), framed, "event 8").ok()) abort();

  // The payload decoders, as if the checksum had matched.
  uint64_t seq = 0;
  if (auto e = rec::DecodeEvent(input, &seq); e.ok()) {
    std::string again = rec::EncodeEventPayload(seq, *e);
    uint64_t seq2 = 0;
    auto e2 = rec::DecodeEvent(again, &seq2);
    if (!e2.ok() || seq2 != seq || rec::EncodeEventPayload(seq2, *e2) != again) abort();
  }
  if (auto a = rec::DecodeAction(input); a.ok()) {
    std::string again = rec::EncodeActionPayload(*a);
    auto a2 = rec::DecodeAction(again);
    if (!a2.ok() || rec::EncodeActionPayload(*a2) != again) abort();
  }
  if (auto c = rec::DecodeContent(input); c.ok()) {
    std::string again = rec::EncodeContentPayload("sha256:x", *c);
    auto c2 = rec::DecodeContent(again);
    if (!c2.ok() || *c2 != *c) abort();
  }
  // The runtime's unanswered-actions checkpoint (an aux record): what
  // decodes re-encodes stably.
  if (auto u = recon::runtime::UnansweredScan::Decode(input); u.ok()) {
    std::string again = u->Encode();
    auto u2 = recon::runtime::UnansweredScan::Decode(again);
    if (!u2.ok() || u2->Encode() != again || u2->through() != u->through()) abort();
  }
  if (auto v = rec::EventView::Parse(input); v.ok()) {
    // What replay does with a stored event.
    (void)recon::engine::Event::FromCapnp(v->reader());
  }
  return 0;
}
