#include "records/codec.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>
#include <xxhash.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "base/strings.h"

namespace recon::records {
namespace {

void PutBigEndian(std::string& out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t FrameChecksum(std::string_view key, std::string_view payload) {
  uint64_t seed = XXH3_64bits(key.data(), key.size());
  return XXH3_64bits_withSeed(payload.data(), payload.size(), seed);
}

capnp::Data::Reader AsData(std::string_view s) {
  return capnp::Data::Reader(reinterpret_cast<const kj::byte*>(s.data()), s.size());
}

capnp::Text::Reader AsText(const std::string& s) { return capnp::Text::Reader(s.data(), s.size()); }

void SetObjectId(schema::ObjectId::Builder b, const ObjectIdRecord& id) {
  b.setGroup(AsText(id.group));
  b.setVersion(AsText(id.version));
  b.setKind(AsText(id.kind));
  b.setNamespace(AsText(id.ns));
  b.setName(AsText(id.name));
  b.setUid(AsText(id.uid));
  b.setResourceVersion(AsText(id.resource_version));
}

ObjectIdRecord GetObjectId(schema::ObjectId::Reader r) {
  ObjectIdRecord id;
  id.group = View(r.getGroup());
  id.version = View(r.getVersion());
  id.kind = View(r.getKind());
  id.ns = View(r.getNamespace());
  id.name = View(r.getName());
  id.uid = View(r.getUid());
  id.resource_version = View(r.getResourceVersion());
  return id;
}

std::string ToBytes(capnp::MessageBuilder& message) {
  kj::Array<capnp::word> words = capnp::messageToFlatArray(message);
  auto bytes = words.asBytes();
  return std::string(reinterpret_cast<const char*>(bytes.begin()), bytes.size());
}

// Cap'n Proto wants 8-byte aligned input; RocksDB values are not aligned.
kj::Array<capnp::word> Aligned(std::string_view payload) {
  auto words = kj::heapArray<capnp::word>((payload.size() + 7) / 8);
  if (!payload.empty()) std::memcpy(words.begin(), payload.data(), payload.size());
  return words;
}

template <typename Fn>
auto CatchKj(const std::string& what, Fn&& fn) -> absl::StatusOr<decltype(fn())> {
  absl::StatusOr<decltype(fn())> result = absl::DataLossError(recon::StrCat(what, ": unreadable"));
  kj::Maybe<kj::Exception> e = kj::runCatchingExceptions([&]() { result = fn(); });
  KJ_IF_MAYBE (ex, e) {
    return absl::DataLossError(
        recon::StrCat(what, ": malformed Cap'n Proto record: ", ex->getDescription().cStr()));
  }
  return result;
}

}  // namespace

std::string EventKey(uint64_t seq) {
  std::string k;
  PutBigEndian(k, seq, 8);
  return k;
}

std::string ActionKey(uint64_t cause_seq, uint32_t index) {
  std::string k;
  PutBigEndian(k, cause_seq, 8);
  PutBigEndian(k, index, 4);
  return k;
}

uint64_t DecodeSeqKey(std::string_view key) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8 && i < key.size(); ++i) v = (v << 8) | static_cast<unsigned char>(key[i]);
  return v;
}

std::string Frame(std::string_view key, std::string_view payload) {
  std::string out;
  out.reserve(kFrameHeader + payload.size());
  out.push_back(static_cast<char>(kFrameVersion));
  uint64_t sum = FrameChecksum(key, payload);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((sum >> (8 * i)) & 0xff));
  out.append(payload);
  return out;
}

absl::StatusOr<std::string_view> Unframe(std::string_view key, std::string_view value,
                                         const std::string& what) {
  if (value.size() < kFrameHeader) {
    return absl::DataLossError(recon::StrCat(what, ": record truncated to ", value.size(), " bytes"));
  }
  if (static_cast<uint8_t>(value[0]) != kFrameVersion) {
    return absl::DataLossError(
        recon::StrCat(what, ": unknown frame version ", static_cast<int>(static_cast<uint8_t>(value[0]))));
  }
  uint64_t stored = 0;
  for (int i = 0; i < 8; ++i) stored |= uint64_t{static_cast<unsigned char>(value[1 + i])} << (8 * i);
  std::string_view payload = value.substr(kFrameHeader);
  if (FrameChecksum(key, payload) != stored) {
    return absl::DataLossError(recon::StrCat(what, ": checksum mismatch (record corrupted)"));
  }
  return payload;
}

std::string EncodeEventPayload(uint64_t seq, const EventRecord& e) {
  capnp::MallocMessageBuilder message;
  auto b = message.initRoot<schema::Event>();
  b.setFormatVersion(schema::EVENT_FORMAT_VERSION);
  b.setSeq(seq);
  b.setTimeNs(e.time_ns);
  b.setType(static_cast<schema::EventType>(e.type));
  switch (e.type) {
    case EventType::kAdded:
    case EventType::kModified:
    case EventType::kDeleted:
      SetObjectId(b.initObject(), e.object);
      b.setBody(AsData(e.body));
      break;
    case EventType::kTimer:
      b.setTimer(AsText(e.timer));
      break;
    case EventType::kProbe: {
      auto p = b.initProbe();
      p.setName(AsText(e.probe.name));
      p.setTarget(AsText(e.probe.target));
      p.setOk(e.probe.ok);
      p.setHasStatus(e.probe.status.has_value());
      p.setStatus(e.probe.status.value_or(0));
      p.setDetail(AsText(e.probe.detail));
      p.setData(AsData(e.probe.data));
      break;
    }
    case EventType::kActionResult: {
      auto r = b.initActionResult();
      r.setAction(AsText(e.action_result.action));
      r.setOk(e.action_result.ok);
      r.setHasStatus(e.action_result.status.has_value());
      r.setStatus(e.action_result.status.value_or(0));
      r.setError(AsText(e.action_result.error));
      r.setResourceVersion(AsText(e.action_result.resource_version));
      r.setUid(AsText(e.action_result.uid));
      r.setWarnings(AsData(e.action_result.warnings));
      break;
    }
    case EventType::kCluster:
      b.setClusterFacts(AsData(e.cluster_facts));
      break;
    case EventType::kContent: {
      auto c = b.initContent();
      c.setName(AsText(e.content_name));
      c.setDigest(AsText(e.content_digest));
      break;
    }
  }
  return ToBytes(message);
}

std::string EncodeActionPayload(const ActionRecord& a) {
  capnp::MallocMessageBuilder message;
  auto b = message.initRoot<schema::Action>();
  b.setFormatVersion(schema::ACTION_FORMAT_VERSION);
  b.setCauseSeq(a.cause_seq);
  b.setIndex(a.index);
  b.setDomain(AsText(a.domain));
  b.setVerb(AsText(a.verb));
  SetObjectId(b.initObject(), a.object);
  b.setBody(AsData(a.body));
  b.setTimer(AsText(a.timer));
  b.setAtNs(a.at_ns);
  b.setProbe(AsText(a.probe));
  b.setTarget(AsText(a.target));
  return ToBytes(message);
}

std::string EncodeContentPayload(std::string_view digest, const ContentFiles& files) {
  capnp::MallocMessageBuilder message;
  auto b = message.initRoot<schema::Content>();
  b.setDigest(capnp::Text::Reader(digest.data(), digest.size()));
  auto list = b.initFiles(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    list[i].setPath(AsText(files[i].first));
    list[i].setData(AsData(files[i].second));
  }
  return ToBytes(message);
}

absl::StatusOr<EventRecord> DecodeEvent(std::string_view payload, uint64_t* seq_out) {
  auto words = Aligned(payload);
  return CatchKj("event", [&]() {
    capnp::FlatArrayMessageReader message(words);
    auto r = message.getRoot<schema::Event>();
    EventRecord e;
    if (seq_out) *seq_out = r.getSeq();
    e.time_ns = r.getTimeNs();
    e.type = static_cast<EventType>(r.getType());
    e.object = GetObjectId(r.getObject());
    e.body = View(r.getBody());
    e.timer = View(r.getTimer());
    auto p = r.getProbe();
    e.probe.name = View(p.getName());
    e.probe.target = View(p.getTarget());
    e.probe.ok = p.getOk();
    if (p.getHasStatus()) e.probe.status = p.getStatus();
    e.probe.detail = View(p.getDetail());
    e.probe.data = View(p.getData());
    auto ar = r.getActionResult();
    e.action_result.action = View(ar.getAction());
    e.action_result.ok = ar.getOk();
    if (ar.getHasStatus()) e.action_result.status = ar.getStatus();
    e.action_result.error = View(ar.getError());
    e.action_result.resource_version = View(ar.getResourceVersion());
    e.action_result.uid = View(ar.getUid());
    e.action_result.warnings = View(ar.getWarnings());
    e.cluster_facts = View(r.getClusterFacts());
    e.content_name = View(r.getContent().getName());
    e.content_digest = View(r.getContent().getDigest());
    return e;
  });
}

absl::StatusOr<ActionRecord> DecodeAction(std::string_view payload) {
  auto words = Aligned(payload);
  return CatchKj("action", [&]() {
    capnp::FlatArrayMessageReader message(words);
    auto r = message.getRoot<schema::Action>();
    ActionRecord a;
    a.cause_seq = r.getCauseSeq();
    a.index = r.getIndex();
    a.domain = View(r.getDomain());
    a.verb = View(r.getVerb());
    a.object = GetObjectId(r.getObject());
    a.body = View(r.getBody());
    a.timer = View(r.getTimer());
    a.at_ns = r.getAtNs();
    a.probe = View(r.getProbe());
    a.target = View(r.getTarget());
    return a;
  });
}

absl::StatusOr<ContentFiles> DecodeContent(std::string_view payload) {
  auto words = Aligned(payload);
  capnp::ReaderOptions options;
  // Catalogs are large, so the default 64 MB limit is too small; but a limit
  // tied to the message size still stops a list of zero-size elements whose
  // count claims billions (fuzz/fuzz_store_record: a 4.6 GB reserve).
  options.traversalLimitInWords = 8 * words.size() + 1024;
  return CatchKj("content", [&]() {
    capnp::FlatArrayMessageReader message(words, options);
    auto r = message.getRoot<schema::Content>();
    ContentFiles files;
    files.reserve(r.getFiles().size());
    for (auto f : r.getFiles()) files.emplace_back(View(f.getPath()), View(f.getData()));
    return files;
  });
}

struct EventView::Impl {
  kj::Array<capnp::word> words;
  capnp::FlatArrayMessageReader message;
  schema::Event::Reader root;
  explicit Impl(kj::Array<capnp::word> w)
      : words(kj::mv(w)), message(words), root(message.getRoot<schema::Event>()) {}
};

EventView::EventView(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
EventView::EventView(EventView&&) noexcept = default;
EventView& EventView::operator=(EventView&&) noexcept = default;
EventView::~EventView() = default;

namespace {

// Gets every pointer field once, without copying: totalSize() checks bounds
// only, so a pointer of the wrong kind (a list where a struct belongs) would
// otherwise throw later from an accessor, outside any handler (found by
// fuzz/fuzz_store_record).
void TouchEvent(schema::Event::Reader r) {
  auto o = r.getObject();
  for (auto t : {o.getGroup(), o.getVersion(), o.getKind(), o.getNamespace(), o.getName(), o.getUid(),
                 o.getResourceVersion(), r.getTimer()}) {
    (void)t;
  }
  (void)r.getBody();
  auto p = r.getProbe();
  (void)p.getName(), (void)p.getTarget(), (void)p.getDetail(), (void)p.getData();
  auto a = r.getActionResult();
  (void)a.getAction(), (void)a.getError(), (void)a.getResourceVersion(), (void)a.getUid(),
      (void)a.getWarnings();
  (void)r.getClusterFacts();
  auto c = r.getContent();
  (void)c.getName(), (void)c.getDigest();
}

}  // namespace

absl::StatusOr<EventView> EventView::Parse(std::string_view payload) {
  std::unique_ptr<Impl> impl;
  kj::Maybe<kj::Exception> e = kj::runCatchingExceptions([&]() {
    impl = std::make_unique<Impl>(Aligned(payload));
    (void)impl->root.totalSize();  // walks every pointer: validates once, up front
    TouchEvent(impl->root);
  });
  KJ_IF_MAYBE (ex, e) {
    return absl::DataLossError(
        recon::StrCat("event: malformed Cap'n Proto record: ", ex->getDescription().cStr()));
  }
  return EventView(std::move(impl));
}

schema::Event::Reader EventView::reader() const { return impl_->root; }

}  // namespace recon::records
