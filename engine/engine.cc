#include "engine/engine.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include <chrono>
#include <cstring>

#include "base/strings.h"
#include "records/codec.h"
#include "schema/snapshot.capnp.h"

namespace recon::engine {
namespace {

capnp::Text::Reader T(std::string_view s) { return capnp::Text::Reader(s.data(), s.size()); }
capnp::Data::Reader D(std::string_view s) {
  return capnp::Data::Reader(reinterpret_cast<const kj::byte*>(s.data()), s.size());
}

constexpr std::string_view kGuardState = "engine.createGuard";
constexpr std::string_view kWritesState = "engine.writeTracker";

const std::string& EmptyContentDigest() {
  static const std::string digest = records::ContentDigest({});
  return digest;
}

}  // namespace

Engine::Engine(std::vector<std::unique_ptr<Reducer>> reducers) : reducers_(std::move(reducers)) {
  for (const auto& r : reducers_)
    if (r->Describe().redecides_failed_writes) redeciding_.insert(std::string(r->Domain()));
}

const std::vector<ExplainNote>& Engine::notes(std::string_view domain) const {
  static const std::vector<ExplainNote> kNone;
  auto it = notes_.find(domain);
  return it == notes_.end() ? kNone : it->second;
}

std::map<std::string, OptionSpec> Engine::OptionSpecs() const {
  std::map<std::string, OptionSpec> out;
  for (const auto& r : reducers_) {
    for (auto& o : r->Describe().options) out[recon::StrCat(r->Domain(), ".", o.key)] = o;
  }
  return out;
}

void Engine::AddOptionDefaults(Json& options) const {
  if (!options.is_object()) options = Json::object();
  for (const auto& [key, spec] : OptionSpecs()) {
    if (spec.directory_content || options.contains(key)) continue;
    options[key] = spec.default_value;
  }
}

absl::Status Engine::ApplyOption(std::string_view full_key, std::string_view value) {
  size_t dot = full_key.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == full_key.size()) {
    return absl::InvalidArgumentError(recon::StrCat(
        "option \"", full_key, "\": expected domain.key=value, e.g. samples.removalImportWait=10m"));
  }
  std::string_view domain = full_key.substr(0, dot), key = full_key.substr(dot + 1);
  for (auto& r : reducers_) {
    if (r->Domain() != domain) continue;
    for (const auto& spec : r->Describe().options) {
      if (spec.key == key && spec.directory_content) return absl::OkStatus();  // loaded as Content
    }
    auto s = r->SetOption(key, value);
    if (!s.ok())
      return absl::InvalidArgumentError(recon::StrCat(full_key, "=", value, ": ", Sv(s.message())));
    return absl::OkStatus();
  }
  return absl::OkStatus();  // a domain not running here
}

absl::Status Engine::SetOption(std::string_view full_key, std::string_view value, bool override_log) {
  if (auto s = ApplyOption(full_key, value); !s.ok()) return s;
  options_[std::string(full_key)] = value;
  if (override_log) overridden_.insert(std::string(full_key));
  return absl::OkStatus();
}

absl::Status Engine::ApplyLoggedOptions(const Event& event) {
  auto facts = ParseJson(event.facts);
  if (!facts.ok())
    return absl::InvalidArgumentError(
        recon::StrCat("seq ", event.seq, ": facts: ", Sv(facts.status().message())));
  const Json& opts = Path(*facts, {"options"});
  if (opts.is_null()) return absl::OkStatus();
  if (!opts.is_object())
    return absl::InvalidArgumentError(
        recon::StrCat("seq ", event.seq, ": facts.options: expected an object"));
  for (auto it = opts.begin(); it != opts.end(); ++it) {
    if (overridden_.contains(it.key())) continue;
    if (!it.value().is_string()) {
      return absl::InvalidArgumentError(
          recon::StrCat("seq ", event.seq, ": facts.options.", it.key(), ": expected a string value"));
    }
    std::string value = it.value().get<std::string>();
    if (auto s = ApplyOption(it.key(), value); !s.ok()) {
      return absl::InvalidArgumentError(recon::StrCat("seq ", event.seq, ": ", Sv(s.message())));
    }
    options_[it.key()] = value;
  }
  return absl::OkStatus();
}

void Engine::SetContent(std::string_view name, std::string_view digest,
                        std::shared_ptr<const records::ContentFiles> files) {
  content_cache_[std::string(digest)] = files;
  world_.SetContent(name, digest, std::move(files), 0);
}

absl::Status Engine::Step(const Event& event, std::vector<records::ActionRecord>* out) {
  if (phase_observer_) phase_observer_(StepPhase::kWorld);
  absl::Status s = StepPhases(event, out);
  if (phase_observer_) phase_observer_(StepPhase::kDone);
  return s;
}

absl::Status Engine::StepPhases(const Event& event, std::vector<records::ActionRecord>* out) {
  if (event.type == records::EventType::kContent) {
    std::shared_ptr<const records::ContentFiles> files;
    auto cached = content_cache_.find(std::string(event.content_digest));
    if (cached != content_cache_.end()) {
      files = cached->second;
    } else if (event.content_files) {
      files = std::make_shared<const records::ContentFiles>(*event.content_files);
    } else if (event.content_digest == EmptyContentDigest()) {
      // An empty catalog is a catalog with no files: a JSONL line
      // `"files":{}` and a store record look the same (no files, this
      // digest), so replay from either agrees without asking the store.
      files = std::make_shared<const records::ContentFiles>();
    } else if (resolver_) {
      auto f = resolver_(event.content_digest);
      if (!f.ok())
        return absl::DataLossError(recon::StrCat("seq ", event.seq, ": ", Sv(f.status().message())));
      files = std::make_shared<const records::ContentFiles>(std::move(*f));
    } else {
      return absl::FailedPreconditionError(
          recon::StrCat("seq ", event.seq, ": Content ", event.content_name, " has no files to read"));
    }
    content_cache_[std::string(event.content_digest)] = files;
    world_.SetContent(event.content_name, event.content_digest, std::move(files), event.seq);
  } else if (event.type == records::EventType::kCluster) {
    if (auto s = ApplyLoggedOptions(event); !s.ok()) return s;
  }
  world_.Apply(event);
  held_.clear();
  guard_.Observe(event);
  world_.mutable_writes().Observe(event,
                                  [this](std::string_view domain) { return redeciding_.contains(domain); });
  uint32_t next_index = 0;
  if (phase_observer_) phase_observer_(StepPhase::kReduce);
  for (auto& r : reducers_) {
    size_t before = out->size();
    Emit emit(r->Domain(), event.seq, &next_index, out);
    if (collect_notes_) {
      auto& sink = notes_[std::string(r->Domain())];
      sink.clear();
      emit.set_notes(&sink);
    }
    if (reduce_observer_) {
      auto t0 = std::chrono::steady_clock::now();
      r->Reduce(event, world_, emit);
      reduce_observer_(r->Domain(),
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    } else {
      r->Reduce(event, world_, emit);
    }
    // In the action stream, not the dispatcher: a replay holds the same.
    guard_.Admit(event, *out, before, &held_);
    world_.mutable_writes().Sent(event, *out, before);
  }
  last_seq_ = event.seq;
  return absl::OkStatus();
}

absl::StatusOr<std::string> Engine::Snapshot() const {
  capnp::MallocMessageBuilder message;
  auto snap = message.initRoot<schema::Snapshot>();
  snap.setFormatVersion(schema::SNAPSHOT_FORMAT_VERSION);
  snap.setSeq(last_seq_);
  auto objects = snap.initObjects(world_.ObjectCount());
  size_t i = 0;
  world_.ForEachObject([&](const Object& o) {
    auto b = objects[i++];
    b.setGroup(T(o.group()));
    b.setVersion(T(o.version()));
    b.setKind(T(o.kind()));
    b.setNamespace(T(o.ns()));
    b.setName(T(o.name()));
    b.setBody(D(o.body()));
    b.setSeq(o.seq());
    b.setTimeNs(o.time_ns());
  });
  std::string facts = Dump(world_.facts());
  snap.setClusterFacts(D(facts));
  // The create guard's and the write tracker's states ride along as two
  // more entries (no domain has a dot in its name; an older recon ignores
  // them).
  auto states = snap.initReducers(reducers_.size() + 2);
  for (size_t r = 0; r < reducers_.size(); ++r) {
    SnapshotWriter w;
    if (auto s = reducers_[r]->Snapshot(w); !s.ok()) return s;
    states[r].setDomain(T(reducers_[r]->Domain()));
    states[r].setData(D(w.bytes()));
  }
  std::string guard = Dump(guard_.ToJson());
  states[reducers_.size()].setDomain(T(kGuardState));
  states[reducers_.size()].setData(D(guard));
  std::string writes = Dump(world_.writes().ToJson());
  states[reducers_.size() + 1].setDomain(T(kWritesState));
  states[reducers_.size() + 1].setData(D(writes));
  auto opts = snap.initOptions(options_.size());
  i = 0;
  for (const auto& [k, v] : options_) {
    opts[i].setKey(T(k));
    opts[i++].setValue(T(v));
  }
  auto contents = snap.initContents(world_.contents().size());
  i = 0;
  for (const auto& [name, entry] : world_.contents()) {
    auto c = contents[i++];
    c.setName(T(name));
    c.setDigest(T(entry.digest));
    c.setSeq(entry.seq);
    auto files = c.initFiles(entry.files ? entry.files->size() : 0);
    for (size_t f = 0; entry.files && f < entry.files->size(); ++f) {
      files[f].setPath(T((*entry.files)[f].first));
      files[f].setData(D((*entry.files)[f].second));
    }
  }
  kj::Array<capnp::word> words = capnp::messageToFlatArray(message);
  auto bytes = words.asBytes();
  return std::string(reinterpret_cast<const char*>(bytes.begin()), bytes.size());
}

absl::Status Engine::Restore(std::string_view bytes) {
  auto words = kj::heapArray<capnp::word>((bytes.size() + 7) / 8);
  if (!bytes.empty()) std::memcpy(words.begin(), bytes.data(), bytes.size());
  absl::Status status;
  capnp::ReaderOptions ro;
  // Proportional to the snapshot, not unlimited: a list of zero-size elements
  // claiming 2^29 entries costs no bytes but hours of looping
  // (fuzz/fuzz_snapshot_restore). Each word is read only a few times.
  ro.traversalLimitInWords = 8 * words.size() + 1024;
  kj::Maybe<kj::Exception> e = kj::runCatchingExceptions([&]() {
    capnp::FlatArrayMessageReader message(words, ro);
    auto snap = message.getRoot<schema::Snapshot>();
    if (snap.getFormatVersion() != schema::SNAPSHOT_FORMAT_VERSION) {
      status = absl::FailedPreconditionError(recon::StrCat("snapshot format ", snap.getFormatVersion(),
                                                           ", this recon reads ",
                                                           schema::SNAPSHOT_FORMAT_VERSION));
      return;
    }
    world_.Clear();
    content_cache_.clear();
    for (auto o : snap.getObjects()) {
      world_.PutObject(
          ObjectKey{std::string(records::View(o.getGroup())), std::string(records::View(o.getKind())),
                    std::string(records::View(o.getNamespace())), std::string(records::View(o.getName()))},
          std::string(records::View(o.getVersion())), std::string(records::View(o.getBody())), o.getSeq(),
          o.getTimeNs());
    }
    auto facts = ParseJson(records::View(snap.getClusterFacts()));
    if (facts.ok()) world_.MergeFacts(*facts);
    for (auto c : snap.getContents()) {
      auto files = std::make_shared<records::ContentFiles>();
      for (auto f : c.getFiles()) files->emplace_back(records::View(f.getPath()), records::View(f.getData()));
      std::string digest(records::View(c.getDigest()));
      content_cache_[digest] = files;
      world_.SetContent(records::View(c.getName()), digest, files, c.getSeq());
    }
    for (auto o : snap.getOptions()) {
      std::string key(records::View(o.getKey()));
      if (overridden_.contains(key)) continue;
      status = ApplyOption(key, records::View(o.getValue()));
      if (!status.ok()) return;
      options_[key] = records::View(o.getValue());
    }
    auto states = snap.getReducers();
    for (auto& r : reducers_) {
      bool found = false;
      for (auto st : states) {
        if (records::View(st.getDomain()) != r->Domain()) continue;
        SnapshotReader reader(records::View(st.getData()));
        status = r->Restore(reader);
        if (!status.ok()) return;
        found = true;
      }
      if (!found) {
        status = absl::FailedPreconditionError(recon::StrCat("snapshot has no state for domain ", r->Domain(),
                                                             "; replay from the start instead"));
        return;
      }
    }
    guard_.Clear();
    for (auto st : states) {
      if (records::View(st.getDomain()) != kGuardState) continue;
      auto j = ParseJson(records::View(st.getData()));
      status = j.ok() ? guard_.FromJson(*j) : j.status();
      if (!status.ok()) return;
    }
    // A snapshot from before the tracker has none: nothing in flight.
    world_.mutable_writes().Clear();
    for (auto st : states) {
      if (records::View(st.getDomain()) != kWritesState) continue;
      auto j = ParseJson(records::View(st.getData()));
      status = j.ok() ? world_.mutable_writes().FromJson(*j) : j.status();
      if (!status.ok()) return;
    }
    last_seq_ = snap.getSeq();
  });
  KJ_IF_MAYBE (ex, e) {
    return absl::DataLossError(recon::StrCat("snapshot: malformed: ", ex->getDescription().cStr()));
  }
  return status;
}

absl::StatusOr<std::string> Engine::StateDigest() const {
  auto snap = Snapshot();
  if (!snap.ok()) return snap.status();
  return records::ContentDigest({{"snapshot", *snap}});
}

}  // namespace recon::engine
