#include "engine/world.h"

namespace recon::engine {
namespace {
using SvPair = std::pair<std::string_view, std::string_view>;
}  // namespace

const Json& Object::json() const {
  read_ = true;
  if (!json_) {
    auto parsed = ParseJson(body_);
    json_ = std::make_shared<const Json>(parsed.ok() ? std::move(*parsed) : Json());
  }
  return *json_;
}

std::string Object::Label(std::string_view key) const {
  const Json& labels = Path(json(), {"metadata", "labels"});
  if (!labels.is_object()) return "";
  auto it = labels.find(key);
  return it != labels.end() && it->is_string() ? it->get<std::string>() : "";
}

size_t World::KeyViewHash::operator()(const KeyView& k) const {
  std::hash<std::string_view> h;
  size_t x = h(k.group);
  for (std::string_view s : {k.kind, k.ns, k.name}) x = (x ^ h(s)) * 0x9e3779b97f4a7c15ULL + (x >> 29);
  return x;
}

const Object* World::Get(std::string_view group, std::string_view kind, std::string_view ns,
                         std::string_view name) const {
  auto it = index_.find(KeyView{group, kind, ns, name});
  return it == index_.end() ? nullptr : it->second;
}

std::vector<const Object*> World::List(std::string_view group, std::string_view kind) const {
  std::vector<const Object*> out;
  auto gk = objects_.find(SvPair{group, kind});
  if (gk == objects_.end()) return out;
  out.reserve(gk->second.size());
  for (const auto& [nn, obj] : gk->second) out.push_back(obj.get());
  return out;
}

std::vector<const Object*> World::ListIn(std::string_view group, std::string_view kind,
                                         std::string_view ns) const {
  std::vector<const Object*> out;
  auto gk = objects_.find(SvPair{group, kind});
  if (gk == objects_.end()) return out;
  for (auto it = gk->second.lower_bound(SvPair{ns, ""}); it != gk->second.end() && it->first.first == ns;
       ++it) {
    out.push_back(it->second.get());
  }
  return out;
}

std::vector<const Object*> World::Select(std::string_view group, std::string_view kind,
                                         const std::map<std::string, std::string>& selector) const {
  std::vector<const Object*> out;
  for (const Object* o : List(group, kind)) {
    bool match = true;
    for (const auto& [k, v] : selector) {
      if (o->Label(k) != v) {
        match = false;
        break;
      }
    }
    if (match) out.push_back(o);
  }
  return out;
}

std::string World::Fact(std::string_view key) const {
  auto it = facts_.find(key);
  return it != facts_.end() && it->is_string() ? it->get<std::string>() : "";
}

bool World::FactBool(std::string_view key) const {
  auto it = facts_.find(key);
  return it != facts_.end() && it->is_boolean() && it->get<bool>();
}

bool World::Synced() const {
  auto it = facts_.find("synced");
  return it == facts_.end() || !it->is_boolean() || it->get<bool>();
}

const records::ContentFiles* World::Content(std::string_view name) const {
  auto it = contents_.find(name);
  return it == contents_.end() ? nullptr : it->second.files.get();
}

std::string World::ContentDigest(std::string_view name) const {
  auto it = contents_.find(name);
  return it == contents_.end() ? "" : it->second.digest;
}

uint64_t World::ContentSeq(std::string_view name) const {
  auto it = contents_.find(name);
  return it == contents_.end() ? 0 : it->second.seq;
}

void World::PutObject(ObjectKey key, std::string version, std::string body, uint64_t seq, int64_t time_ns) {
  auto& kind = objects_[GroupKind{key.group, key.kind}];
  NsName nn{key.ns, key.name};
  auto obj = std::make_unique<Object>(std::move(key), std::move(version), std::move(body), seq, time_ns);
  Object* fresh = obj.get();
  if (auto old = kind.find(nn); old != kind.end()) index_.erase(ViewOf(*old->second));
  auto [it, inserted] = kind.insert_or_assign(std::move(nn), std::move(obj));
  index_[ViewOf(*fresh)] = fresh;
  if (inserted) ++count_;
}

Object* World::Upsert(std::string_view group, std::string_view kind, std::string_view ns,
                      std::string_view name, std::string_view version, std::string_view body, uint64_t seq,
                      int64_t time_ns) {
  // Lookups by views: the hot path (a known object changing) is one hash
  // lookup and allocates nothing but what the body's size needs.
  if (auto known = index_.find(KeyView{group, kind, ns, name}); known != index_.end()) {
    known->second->Replace(version, body, seq, time_ns);
    return known->second;
  }
  auto gk = objects_.find(SvPair{group, kind});
  if (gk == objects_.end()) {
    gk = objects_.emplace(GroupKind{std::string(group), std::string(kind)}, decltype(gk->second){}).first;
  }
  auto obj = std::make_unique<Object>(
      ObjectKey{std::string(group), std::string(kind), std::string(ns), std::string(name)},
      std::string(version), std::string(body), seq, time_ns);
  Object* out = obj.get();
  index_.emplace(ViewOf(*obj), out);
  gk->second.emplace(NsName{std::string(ns), std::string(name)}, std::move(obj));
  ++count_;
  return out;
}

void World::Apply(const Event& e) {
  switch (e.type) {
    case records::EventType::kAdded:
    case records::EventType::kModified: {
      Object* o = Upsert(e.group, e.kind, e.ns, e.name, e.version, e.body, e.seq, e.time_ns);
      if (e.parsed) o->AdoptParse(e.parsed);
      break;
    }
    case records::EventType::kDeleted: {
      auto gk = objects_.find(SvPair{e.group, e.kind});
      if (gk == objects_.end()) break;
      auto it = gk->second.find(SvPair{e.ns, e.name});
      if (it == gk->second.end()) break;
      index_.erase(ViewOf(*it->second));
      gk->second.erase(it);
      --count_;
      if (gk->second.empty()) objects_.erase(gk);
      break;
    }
    case records::EventType::kCluster: {
      auto facts = ParseJson(e.facts);
      if (facts.ok() && facts->is_object()) MergeFacts(*facts);
      break;
    }
    default:
      break;
  }
}

void World::MergeFacts(const Json& facts) {
  for (auto it = facts.begin(); it != facts.end(); ++it) {
    if (it.key() == "options") continue;  // domain options are the engine's
    facts_[it.key()] = it.value();
  }
}

void World::SetContent(std::string_view name, std::string_view digest,
                       std::shared_ptr<const records::ContentFiles> files, uint64_t seq) {
  auto& entry = contents_[std::string(name)];
  entry.digest = digest;
  entry.files = std::move(files);
  entry.seq = seq;
}

void World::Clear() {
  index_.clear();
  objects_.clear();
  count_ = 0;
  facts_ = Json::object();
  contents_.clear();
  writes_.Clear();
}

}  // namespace recon::engine
