// Shared by both stores: turns EventRecords into framed records ready to
// write, so MemoryStore and RocksDbStore hold byte-identical values.
#ifndef RECON_STORE_BATCH_H_
#define RECON_STORE_BATCH_H_

#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "records/record.h"

namespace recon::store {

struct PreparedContent {
  std::string digest;
  std::string framed;  // Frame(digest, EncodeContentPayload(...))
};

// Work done before a batch is given seqs: validates, computes digests and
// encodes content payloads (outside any lock).
struct PreparedBatch {
  std::span<const records::EventRecord> events;
  std::vector<std::string> digests;  // per event; "" unless Content
  // Per event: a Content event that names stored content by digest alone
  // (its files must already be in the store or earlier in the batch).
  std::vector<bool> references;
  std::vector<PreparedContent> contents;
};

absl::Status PrepareBatch(std::span<const records::EventRecord> events, PreparedBatch* out);

// The framed value of event i with its assigned seq.
std::string FramedEvent(const PreparedBatch& batch, size_t i, uint64_t seq);

}  // namespace recon::store

#endif  // RECON_STORE_BATCH_H_
