// The read-only projection of everything observed: objects by identity and
// by label, cluster facts, and domain inputs (Content). The engine applies
// events; reducers only read. Iteration is always in key order.
#ifndef RECON_ENGINE_WORLD_H_
#define RECON_ENGINE_WORLD_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "engine/event.h"
#include "engine/json.h"
#include "engine/write_tracker.h"
#include "records/record.h"

namespace recon::engine {

struct ObjectKey {
  std::string group, kind, ns, name;
  auto operator<=>(const ObjectKey&) const = default;
};

class Object {
 public:
  Object(ObjectKey key, std::string version, std::string body, uint64_t seq, int64_t time_ns)
      : key_(std::move(key)),
        version_(std::move(version)),
        body_(std::move(body)),
        seq_(seq),
        time_ns_(time_ns) {}

  // A newer version of the same object: buffers are reused, the parse
  // cache dropped.
  void Replace(std::string_view version, std::string_view body, uint64_t seq, int64_t time_ns) {
    version_.assign(version);
    body_.assign(body);
    seq_ = seq;
    time_ns_ = time_ns;
    json_.reset();
  }

  const ObjectKey& key() const { return key_; }
  std::string_view group() const { return key_.group; }
  std::string_view kind() const { return key_.kind; }
  std::string_view ns() const { return key_.ns; }
  std::string_view name() const { return key_.name; }
  std::string_view version() const { return version_; }
  std::string_view body() const { return body_; }
  uint64_t seq() const { return seq_; }         // seq of the last Added/Modified
  int64_t time_ns() const { return time_ns_; }  // its time

  // The body parsed (simdjson) on first use and cached. Null if unparseable.
  const Json& json() const;
  // A parse of this body made ahead (a pipelined replay's decode stage),
  // and its release after the Step when no reducer read it: the World then
  // keeps the parses the serial replay keeps, no more.
  void AdoptParse(std::shared_ptr<const Json> parsed) {
    json_ = std::move(parsed);
    read_ = false;
  }
  // Returns whether it was read.
  bool ReleaseUnread() const {
    const bool read = read_;
    if (!read) json_.reset();
    read_ = true;
    return read;
  }
  bool parse_cached() const { return json_ != nullptr; }
  // metadata.labels[key], "" when absent.
  std::string Label(std::string_view key) const;

 private:
  ObjectKey key_;
  std::string version_;
  std::string body_;
  uint64_t seq_;
  int64_t time_ns_;
  mutable std::shared_ptr<const Json> json_;
  mutable bool read_ = true;  // json() called since AdoptParse
};

class World {
 public:
  World() = default;
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  const Object* Get(std::string_view group, std::string_view kind, std::string_view ns,
                    std::string_view name) const;
  // Every object of a kind (all namespaces), in (namespace, name) order.
  std::vector<const Object*> List(std::string_view group, std::string_view kind) const;
  std::vector<const Object*> ListIn(std::string_view group, std::string_view kind, std::string_view ns) const;
  // Objects of a kind whose labels include every pair of `selector`.
  std::vector<const Object*> Select(std::string_view group, std::string_view kind,
                                    const std::map<std::string, std::string>& selector) const;
  size_t ObjectCount() const { return count_; }

  // Merged facts of every Cluster event so far (later keys win).
  const Json& facts() const { return facts_; }
  std::string Fact(std::string_view key) const;  // string facts; "" when absent
  bool FactBool(std::string_view key) const;
  // False between a live adapter's start and the end of its initial lists
  // (the Cluster fact `synced`); no decision may rest on an object's
  // absence before it. A log without the fact is synced from line 1.
  bool Synced() const;

  // The writes the domains sent and what became of them (issue 19).
  const WriteTracker& writes() const { return writes_; }

  // Domain inputs by name ("samples/inventory", "olm/catalog/ns/name").
  const records::ContentFiles* Content(std::string_view name) const;
  std::string ContentDigest(std::string_view name) const;
  // Seq of the Content event that set `name` (0 if given before line 1).
  uint64_t ContentSeq(std::string_view name) const;

  // --- engine only ---
  void Apply(const Event& event);
  void SetContent(std::string_view name, std::string_view digest,
                  std::shared_ptr<const records::ContentFiles> files, uint64_t seq);
  void PutObject(ObjectKey key, std::string version, std::string body, uint64_t seq, int64_t time_ns);
  Object* Upsert(std::string_view group, std::string_view kind, std::string_view ns, std::string_view name,
                 std::string_view version, std::string_view body, uint64_t seq, int64_t time_ns);
  void MergeFacts(const Json& facts);
  void Clear();
  WriteTracker& mutable_writes() { return writes_; }

  template <typename Fn>
  void ForEachObject(Fn&& fn) const {
    for (const auto& [gk, objs] : objects_)
      for (const auto& [nn, obj] : objs) fn(*obj);
  }
  struct ContentEntry {
    std::string digest;
    std::shared_ptr<const records::ContentFiles> files;
    uint64_t seq = 0;
  };
  const std::map<std::string, ContentEntry, std::less<>>& contents() const { return contents_; }

 private:
  using GroupKind = std::pair<std::string, std::string>;
  using NsName = std::pair<std::string, std::string>;
  // Orders pairs of strings against pairs of string_views without copies.
  struct PairLess {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      std::string_view a1 = a.first, a2 = a.second, b1 = b.first, b2 = b.second;
      return a1 < b1 || (a1 == b1 && a2 < b2);
    }
  };
  std::map<GroupKind, std::map<NsName, std::unique_ptr<Object>, PairLess>, PairLess> objects_;
  // Point lookups (Get, Upsert) by hash: at hundreds of thousands of objects
  // the ordered maps' string compares and cache misses dominated replay.
  // Views into each Object's own key; never iterated, so order cannot leak.
  struct KeyView {
    std::string_view group, kind, ns, name;
    bool operator==(const KeyView&) const = default;
  };
  struct KeyViewHash {
    size_t operator()(const KeyView& k) const;
  };
  static KeyView ViewOf(const Object& o) { return {o.group(), o.kind(), o.ns(), o.name()}; }
  std::unordered_map<KeyView, Object*, KeyViewHash> index_;
  size_t count_ = 0;
  Json facts_ = Json::object();
  WriteTracker writes_;
  std::map<std::string, ContentEntry, std::less<>> contents_;
};

}  // namespace recon::engine

#endif  // RECON_ENGINE_WORLD_H_
