#include "base/strings.h"
#include "store/batch.h"

#include "absl/strings/str_cat.h"
#include "store/codec.h"

namespace recon::store {

absl::Status PrepareBatch(std::span<const engine::EventRecord> events, PreparedBatch* out) {
  out->events = events;
  out->digests.assign(events.size(), "");
  out->references.assign(events.size(), false);
  for (size_t i = 0; i < events.size(); ++i) {
    const engine::EventRecord& e = events[i];
    if (e.type != engine::EventType::kContent) continue;
    if (e.content_name.empty()) {
      return absl::InvalidArgumentError(recon::StrCat("event ", i, " of batch: Content without a name"));
    }
    std::string digest = engine::ContentDigest(e.content_files);
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
      engine::ContentFiles sorted = e.content_files;
      std::sort(sorted.begin(), sorted.end());
      out->contents.push_back({digest, Frame(digest, EncodeContentPayload(digest, sorted))});
    }
    out->digests[i] = std::move(digest);
  }
  return absl::OkStatus();
}

std::string FramedEvent(const PreparedBatch& batch, size_t i, uint64_t seq) {
  const engine::EventRecord& e = batch.events[i];
  if (e.type == engine::EventType::kContent && e.content_digest != batch.digests[i]) {
    engine::EventRecord copy = e;
    copy.content_digest = batch.digests[i];
    copy.content_files.clear();
    return Frame(EventKey(seq), EncodeEventPayload(seq, copy));
  }
  return Frame(EventKey(seq), EncodeEventPayload(seq, e));
}

}  // namespace recon::store
