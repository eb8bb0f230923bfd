#include "engine/emit.h"

#include "base/strings.h"
#include "engine/jsonl_reader.h"
#include "engine/write_tracker.h"

namespace recon::engine {

std::string ActionId(uint64_t cause, uint32_t index) { return recon::StrCat(cause, ".", index); }

records::ActionRecord& Emit::Next(std::string_view verb) {
  records::ActionRecord& a = out_->emplace_back();
  a.cause_seq = cause_;
  a.index = (*next_index_)++;
  a.domain = domain_;
  a.verb = verb;
  ++count_;
  return a;
}

std::string Emit::Object(std::string_view verb, const Json& object) {
  records::ActionRecord& a = Next(verb);
  SplitApiVersion(GetString(object, {"apiVersion"}), &a.object.group, &a.object.version);
  a.object.kind = GetString(object, {"kind"});
  a.object.ns = GetString(object, {"metadata", "namespace"});
  a.object.name = GetString(object, {"metadata", "name"});
  a.body = Dump(object);
  return ActionId(a.cause_seq, a.index);
}

std::optional<EmittedWrite> Emit::Written(std::string_view group, std::string_view kind, std::string_view ns,
                                          std::string_view name) const {
  for (size_t i = 0; i < count_; ++i) {
    const records::ActionRecord& a = (*out_)[out_->size() - 1 - i];
    if (a.object.name == name && a.object.kind == kind && a.object.ns == ns && a.object.group == group &&
        WriteTracker::Tracked(a.verb))
      return EmittedWrite{a.verb, a.body, ActionId(a.cause_seq, a.index)};
  }
  return std::nullopt;
}

std::string Emit::SetTimer(std::string_view timer, int64_t at_ns) {
  records::ActionRecord& a = Next("setTimer");
  a.timer = timer;
  a.at_ns = at_ns;
  return ActionId(a.cause_seq, a.index);
}

std::string Emit::Probe(std::string_view probe, std::string_view target) {
  records::ActionRecord& a = Next("probe");
  a.probe = probe;
  a.target = target;
  return ActionId(a.cause_seq, a.index);
}

}  // namespace recon::engine
