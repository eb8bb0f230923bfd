// Encoding of log records: Cap'n Proto messages inside a checksummed frame.
// The frame layout is documented in store/FORMAT.md; both stores use it so
// their bytes are identical.
#ifndef RECON_RECORDS_CODEC_H_
#define RECON_RECORDS_CODEC_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "records/record.h"
#include "schema/action.capnp.h"
#include "schema/event.capnp.h"

namespace recon::records {

inline constexpr uint8_t kFrameVersion = 1;
inline constexpr size_t kFrameHeader = 9;  // version byte + u64 checksum

// Big-endian fixed-width keys so RocksDB's bytewise order is numeric order.
std::string EventKey(uint64_t seq);
std::string ActionKey(uint64_t cause_seq, uint32_t index);
uint64_t DecodeSeqKey(std::string_view key);  // first 8 bytes

// Wraps `payload` in a frame whose checksum also covers `key`, so a record
// copied under another key is detected.
std::string Frame(std::string_view key, std::string_view payload);
// Verifies a frame and returns its payload; DataLoss naming `what` otherwise.
absl::StatusOr<std::string_view> Unframe(std::string_view key, std::string_view value,
                                         const std::string& what);

std::string EncodeEventPayload(uint64_t seq, const EventRecord& event);
std::string EncodeActionPayload(const ActionRecord& action);
std::string EncodeContentPayload(std::string_view digest, const ContentFiles& files);

absl::StatusOr<EventRecord> DecodeEvent(std::string_view payload, uint64_t* seq_out = nullptr);
absl::StatusOr<ActionRecord> DecodeAction(std::string_view payload);
absl::StatusOr<ContentFiles> DecodeContent(std::string_view payload);

// A read-only view over one encoded event. Copies the payload once into an
// aligned buffer (Cap'n Proto needs word alignment); accessors then point
// into it without further copies.
class EventView {
 public:
  static absl::StatusOr<EventView> Parse(std::string_view payload);
  EventView(EventView&&) noexcept;
  EventView& operator=(EventView&&) noexcept;
  ~EventView();

  schema::Event::Reader reader() const;

 private:
  struct Impl;
  explicit EventView(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

inline std::string_view View(capnp::Text::Reader t) { return {t.cStr(), t.size()}; }
inline std::string_view View(capnp::Data::Reader d) {
  return {reinterpret_cast<const char*>(d.begin()), d.size()};
}

}  // namespace recon::records

#endif  // RECON_RECORDS_CODEC_H_
