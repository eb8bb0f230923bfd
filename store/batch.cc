#include "store/batch.h"

#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "records/codec.h"

namespace recon::store {

absl::Status PrepareBatch(std::span<const records::EventRecord> events, PreparedBatch* out) {
  out->events = events;
  out->digests.assign(events.size(), "");
  out->references.assign(events.size(), false);
  for (size_t i = 0; i < events.size(); ++i) {
    const records::EventRecord& e = events[i];
    if (e.type != records::EventType::kContent) continue;
    if (e.content_name.empty()) {
      return absl::InvalidArgumentError(recon::StrCat("event ", i, " of batch: Content without a name"));
    }
    std::string digest = records::ContentDigest(e.content_files);
    // No files and a digest is a reference to stored content, unless the
    // digest is that of the empty file set (JSONL "files":{}), which is
    // content in its own right.
    const bool reference = e.content_files.empty() && !e.content_digest.empty() && e.content_digest != digest;
    if (reference) {
      digest = e.content_digest;  // refers to content stored earlier
    } else if (!e.content_digest.empty() && e.content_digest != digest) {
      return absl::InvalidArgumentError(recon::StrCat("event ", i, " of batch: Content \"", e.content_name,
                                                     "\" digest ", e.content_digest,
                                                     " does not match its files (", digest, ")"));
    }
    out->references[i] = reference;
    if (!reference) {
      records::ContentFiles sorted = e.content_files;
      std::sort(sorted.begin(), sorted.end());
      out->contents.push_back(
          {digest, records::Frame(digest, records::EncodeContentPayload(digest, sorted))});
    }
    out->digests[i] = std::move(digest);
  }
  return absl::OkStatus();
}

std::string FramedEvent(const PreparedBatch& batch, size_t i, uint64_t seq) {
  const records::EventRecord& e = batch.events[i];
  if (e.type == records::EventType::kContent && e.content_digest != batch.digests[i]) {
    records::EventRecord copy = e;
    copy.content_digest = batch.digests[i];
    copy.content_files.clear();
    return records::Frame(records::EventKey(seq), records::EncodeEventPayload(seq, copy));
  }
  return records::Frame(records::EventKey(seq), records::EncodeEventPayload(seq, e));
}

}  // namespace recon::store
