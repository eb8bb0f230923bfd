// Where reducers put their actions. Each action gets the seq of the event
// being reduced (its cause) and an index unique within that cause; the id
// "<cause>.<index>" is what an ActionResult event refers to. Explain notes
// go here too, to a sink only `recon explain` hands over.
#ifndef RECON_ENGINE_EMIT_H_
#define RECON_ENGINE_EMIT_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/json.h"
#include "records/record.h"

namespace recon::engine {

// A write this Emit made while reducing the current event (the engine's
// write tracker records it only once Reduce returns).
struct EmittedWrite {
  std::string verb, body, action;
};

// A plain-words note for `recon explain`: what the domain waits on and
// since when, why it acted. Never an action, never state.
struct ExplainNote {
  std::string subject, kind, text;
};

class Emit {
 public:
  Emit(std::string_view domain, uint64_t cause, uint32_t* next_index, std::vector<records::ActionRecord>* out)
      : domain_(domain), cause_(cause), next_index_(next_index), out_(out) {}

  // Object verbs carry the whole object (apiVersion, kind, metadata...).
  std::string Create(const Json& object) { return Object("create", object); }
  std::string Update(const Json& object) { return Object("update", object); }
  std::string UpdateStatus(const Json& object) { return Object("updateStatus", object); }
  std::string Delete(const Json& object) { return Object("delete", object); }
  // Any other verb the domain's adapter knows (samples' "importImage": an
  // ImageStreamImport posted to the image API).
  std::string Object(std::string_view verb, const Json& object);
  std::string SetTimer(std::string_view timer, int64_t at_ns);
  std::string Probe(std::string_view probe, std::string_view target);

  // The last create/update/updateStatus/delete/patch of the object this
  // Emit made, if any: a second write to an object within one event would
  // conflict with the first.
  std::optional<EmittedWrite> Written(std::string_view group, std::string_view kind, std::string_view ns,
                                      std::string_view name) const;

  uint64_t cause() const { return cause_; }
  size_t count() const { return count_; }
  // The actions this Emit made so far, oldest first: what a note says was sent.
  std::span<const records::ActionRecord> actions() const {
    return {out_->data() + (out_->size() - count_), count_};
  }

  // Explain notes: kept only while someone explains (the engine set a
  // sink); otherwise dropped. A domain may skip building a costly note
  // when !explaining(); nothing else may depend on it.
  void set_notes(std::vector<ExplainNote>* sink) { notes_ = sink; }
  bool explaining() const { return notes_ != nullptr; }
  void Note(std::string subject, std::string kind, std::string text) {
    if (notes_ != nullptr) notes_->push_back({std::move(subject), std::move(kind), std::move(text)});
  }
  // The notes so far (empty when not explaining), to copy a run of them.
  size_t note_count() const { return notes_ ? notes_->size() : 0; }
  const std::vector<ExplainNote>* notes() const { return notes_; }

 private:
  records::ActionRecord& Next(std::string_view verb);
  std::string domain_;
  uint64_t cause_;
  uint32_t* next_index_;
  std::vector<records::ActionRecord>* out_;
  size_t count_ = 0;
  std::vector<ExplainNote>* notes_ = nullptr;
};

std::string ActionId(uint64_t cause, uint32_t index);

}  // namespace recon::engine

#endif  // RECON_ENGINE_EMIT_H_
