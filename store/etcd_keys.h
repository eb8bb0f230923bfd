// Key names and numbers of the etcd store (FORMAT-etcd.md "Keys"): fixed-
// width lower-case hex, so etcd's byte order is numeric order, and the
// compares its transactions are made of.
#ifndef RECON_STORE_ETCD_KEYS_H_
#define RECON_STORE_ETCD_KEYS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "store/kv_backend.h"

namespace recon::store::etcd_keys {

std::string Hex(uint64_t v, int width);
inline std::string Hex16(uint64_t v) { return Hex(v, 16); }
// Lower-case hex of 1 to 16 digits; nullopt for anything else.
std::optional<uint64_t> ParseHex(std::string_view s);
bool ParseDecimal(std::string_view s, uint64_t* out);

std::string EventName(uint64_t seq);                     // e/<seq:16>
std::string ActionName(uint64_t cause, uint32_t index);  // a/<cause:16><index:8>

// What an operation costs of a request's bytes (as MemoryKv counts).
inline size_t OpBytes(const TxnOp& op) { return op.key.size() + op.value.size() + op.range_end.size() + 8; }

Compare ValueIs(std::string key, std::string value);
Compare VersionIs(std::string key, int64_t version, Compare::Result result = Compare::Result::kEqual);

}  // namespace recon::store::etcd_keys

#endif  // RECON_STORE_ETCD_KEYS_H_
