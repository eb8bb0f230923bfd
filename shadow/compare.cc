#include "shadow/compare.h"

#include <algorithm>
#include <charconv>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_split.h"
#include "engine/emit.h"
#include "shadow/generated.h"
#include "shadow/writers.h"

namespace recon::shadow {
namespace {

// The paths of `kind`'s unordered lists, whichever domain declares them
// ("Kind/a.b" in Options::unordered).
std::vector<std::string> UnorderedPaths(const Options& options, std::string_view kind) {
  std::vector<std::string> out;
  for (const auto& [domain, lists] : options.unordered)
    for (const std::string& u : lists)
      if (u.size() > kind.size() && u.starts_with(kind) && u[kind.size()] == '/')
        out.push_back(u.substr(kind.size() + 1));
  return out;
}

// The value at a dotted path of plain keys, or null.
engine::Json* At(engine::Json& j, std::string_view path) {
  engine::Json* at = &j;
  for (absl::string_view k : absl::StrSplit(absl::string_view(path.data(), path.size()), '.')) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(std::string(k));
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

using engine::Json;

bool IsPrediction(std::string_view verb) {
  return verb == "create" || verb == "update" || verb == "updateStatus" || verb == "delete";
}

// Predictions of one class supersede each other: the object's status
// (updateStatus) or the object itself (create, update, delete).
bool SameClass(std::string_view a, std::string_view b) { return (a == "updateStatus") == (b == "updateStatus"); }

Json ManagedFieldsOnly(const Json& object) {
  Json out = Json::object();
  const Json& mf = engine::Path(object, {"metadata", "managedFields"});
  if (mf.is_array()) out["metadata"]["managedFields"] = mf;
  return out;
}

}  // namespace

std::string_view ResultName(Result r) {
  switch (r) {
    case Result::kMatch:
      return "match";
    case Result::kDiffers:
      return "differs";
    case Result::kMissed:
      return "missed";
    case Result::kUnpredicted:
      return "unpredicted";
    case Result::kPending:
      return "pending";
    case Result::kSuperseded:
      return "superseded";
  }
  return "pending";
}

struct Comparator::Prediction {
  Finding finding;
  int64_t deadline_ns = 0;
  Json predicted;
  // A create of a generated kind not yet paired with the operator's object.
  std::string content_key;
  // What the object became within the window, while nothing matched.
  bool changed = false, deleted = false;
  // Later predictions of the domain on the object, same class: if one of
  // them matched, the operator went past this one (superseded).
  std::vector<std::string> superseded_by;
  Json last_seen;
};

struct Comparator::Unclaimed {
  std::string content_key;
  engine::ObjectKey key;
  int64_t deadline_ns = 0;
  std::vector<Finding> unpredicted;  // reported if nothing claims it in time
};

Comparator::Comparator(Options options) : options_(std::move(options)) {
  for (const auto& [domain, names] : options_.managers)
    if (!names.empty()) any_managers_ = true;
}

Comparator::~Comparator() = default;

DiffRules Comparator::Rules(const std::string& domain) const {
  DiffRules rules;
  if (auto it = options_.free_text.find(domain); it != options_.free_text.end()) rules.free_text = it->second;
  if (auto it = options_.unordered.find(domain); it != options_.unordered.end()) rules.unordered = it->second;
  if (auto it = options_.opaque.find(domain); it != options_.opaque.end()) rules.opaque = it->second;
  rules.generated = &generated_;
  rules.aliases = &aliases_;
  return rules;
}

std::vector<FieldDiff> Comparator::Diff(const Prediction& p, const Json& observed) const {
  DiffRules rules = Rules(p.finding.domain);
  if (p.finding.verb == "updateStatus") return DiffStatus(p.predicted, observed, rules);
  std::vector<FieldDiff> diffs = DiffSpec(p.predicted, observed, rules);
  if (const GeneratedKind* g = GeneratedKindOf(p.finding.object.group, p.finding.object.kind))
    DropUnorderedDiffs(*g, p.predicted, observed, &diffs);
  return diffs;
}

void Comparator::Observe(const engine::Event& event, std::span<const records::ActionRecord> actions,
                         const engine::World* world) {
  now_ns_ = std::max(now_ns_, event.time_ns);
  Expire(now_ns_);
  if (event.IsObject()) OnObject(event);
  for (const auto& a : actions)
    if (IsPrediction(a.verb)) Predict(event, a, world);
}

void Comparator::Predict(const engine::Event& event, const records::ActionRecord& a,
                         const engine::World* world) {
  Prediction p;
  p.finding = PredictionOf(a, event.time_ns);
  p.deadline_ns = event.time_ns + options_.window_ns;
  auto parsed = engine::ParseJson(a.body);
  p.predicted = parsed.ok() ? std::move(*parsed) : Json::object();
  if (auto alias = alias_keys_.find(p.finding.object); alias != alias_keys_.end()) {
    p.finding.predicted_name = p.finding.object.name;
    p.finding.object = alias->second;
  } else if (const GeneratedKind* g = GeneratedKindOf(a.object.group, a.object.kind); g && a.verb == "create") {
    generated_[a.object.name] = std::string(g->prefix);
    p.content_key = ContentKey(*g, p.predicted);
    // The operator may have created it before recon predicted it.
    if (auto observed = ClaimObserved(p)) {
      Alias(p.finding.object, *observed);
      p.finding.predicted_name = p.finding.object.name;
      p.finding.object = *observed;
      p.content_key.clear();
    }
  }
  auto& list = open_[p.finding.object];
  for (auto& earlier : list)
    if (earlier.finding.domain == p.finding.domain && SameClass(earlier.finding.verb, p.finding.verb))
      earlier.superseded_by.push_back(p.finding.action);
  if (auto seq = world == nullptr ? std::nullopt : AlreadyHolds(p, *world, event.seq)) {
    if (list.empty()) open_.erase(p.finding.object);
    if (!list.empty()) matched_[p.finding.action] = event.time_ns;
    p.finding.result = Result::kMatch;
    p.finding.decided = *seq;
    decided_.push_back(std::move(p.finding));
    return;
  }
  list.push_back(std::move(p));
}

std::optional<uint64_t> Comparator::AlreadyHolds(const Prediction& p, const engine::World& world,
                                                 uint64_t now) const {
  if (!p.content_key.empty()) return std::nullopt;  // not paired yet: nothing to look at
  const auto& k = p.finding.object;
  const engine::Object* o = world.Get(k.group, k.kind, k.ns, k.name);
  if (p.finding.verb == "delete") return o == nullptr ? std::optional<uint64_t>(now) : std::nullopt;
  if (o == nullptr) return std::nullopt;
  return Diff(p, o->json()).empty() ? std::optional<uint64_t>(o->seq()) : std::nullopt;
}

// Predictions whose window closed before `now_ns`: the object changed but
// not as predicted (differs), or nothing happened (missed); either is
// `superseded` when a later prediction of the domain took its place.
void Comparator::Expire(int64_t now_ns) {
  for (auto it = open_.begin(); it != open_.end();) {
    auto& list = it->second;
    for (auto p = list.begin(); p != list.end();) {
      if (p->deadline_ns >= now_ns) {
        ++p;
        continue;
      }
      bool superseded = false;
      for (const auto& id : p->superseded_by) superseded |= matched_.contains(id);
      // Diff() reads the finding: compute before it moves.
      std::vector<FieldDiff> diffs;
      if (!superseded && p->changed && !p->deleted && p->finding.verb != "delete") diffs = Diff(*p, p->last_seen);
      Finding f = std::move(p->finding);
      if (superseded) {
        f.result = Result::kSuperseded;
      } else if (!p->changed) {
        f.result = Result::kMissed;
      } else {
        f.result = Result::kDiffers;
        if (f.verb == "delete") {
          f.diffs = {{"(object)", "deleted", "present"}};
        } else if (p->deleted) {
          f.diffs = {{"(object)", "present", "deleted"}};
        } else {
          f.diffs = std::move(diffs);
        }
      }
      decided_.push_back(std::move(f));
      p = list.erase(p);
    }
    it = list.empty() ? open_.erase(it) : std::next(it);
  }
  // A match can only supersede predictions made before it, all expired a
  // window after it.
  std::erase_if(matched_, [&](const auto& m) { return m.second + options_.window_ns < now_ns; });
  for (const auto& u : unclaimed_)
    if (u.deadline_ns < now_ns) decided_.insert(decided_.end(), u.unpredicted.begin(), u.unpredicted.end());
  std::erase_if(unclaimed_, [&](const Unclaimed& u) { return u.deadline_ns < now_ns; });
}

void Comparator::Alias(const engine::ObjectKey& predicted, const engine::ObjectKey& observed) {
  aliases_[predicted.name] = observed.name;
  alias_keys_[predicted] = observed;
  paired_.insert(observed);
  auto from = open_.find(predicted);
  if (from == open_.end()) return;
  auto moved = std::move(from->second);
  open_.erase(from);
  auto& to = open_[observed];
  for (auto& p : moved) {
    p.finding.predicted_name = predicted.name;
    p.finding.object = observed;
    p.content_key.clear();
    to.push_back(std::move(p));
  }
}

// An object of a generated kind appeared: the oldest open create of the
// same content takes it.
bool Comparator::ClaimPredicted(const engine::ObjectKey& key, const std::string& content_key) {
  for (auto& [predicted, list] : open_) {
    if (predicted.group != key.group || predicted.kind != key.kind || predicted.ns != key.ns) continue;
    for (const auto& p : list) {
      if (p.content_key != content_key) continue;
      engine::ObjectKey from = predicted;  // Alias() erases the entry
      Alias(from, key);
      return true;
    }
  }
  return false;
}

// A predicted create of a generated kind: the oldest unclaimed object of
// the same content the operator created within the window before.
std::optional<engine::ObjectKey> Comparator::ClaimObserved(const Prediction& p) {
  for (auto u = unclaimed_.begin(); u != unclaimed_.end(); ++u) {
    if (u->content_key != p.content_key || u->key.group != p.finding.object.group ||
        u->key.kind != p.finding.object.kind || u->key.ns != p.finding.object.ns)
      continue;
    engine::ObjectKey key = u->key;
    unclaimed_.erase(u);
    return key;
  }
  return std::nullopt;
}

void Comparator::OnObject(const engine::Event& event) {
  engine::ObjectKey key{std::string(event.group), std::string(event.kind), std::string(event.ns),
                        std::string(event.name)};
  bool deleted = event.type == records::EventType::kDeleted;
  const GeneratedKind* generated = GeneratedKindOf(event.group, event.kind);
  bool paired = paired_.contains(key);
  bool need_body = open_.contains(key) || (any_managers_ && !deleted) || (generated != nullptr && !deleted);
  Json body;
  if (need_body) {
    auto parsed = engine::ParseJson(event.body);
    body = parsed.ok() ? std::move(*parsed) : Json::object();
  }
  std::string content_key;
  if (generated != nullptr && !deleted && !paired && !open_.contains(key)) {
    content_key = ContentKey(*generated, body);
    if (ClaimPredicted(key, content_key)) content_key.clear();
  }
  // Domains that had a prediction of this object open when it changed:
  // their operator's write is accounted for by that prediction.
  std::set<std::string> predicted_by;
  if (auto open = open_.find(key); open != open_.end()) {
    auto& list = open->second;
    for (auto p = list.begin(); p != list.end();) {
      predicted_by.insert(p->finding.domain);
      bool match = p->finding.verb == "delete" ? deleted : !deleted && Diff(*p, body).empty();
      if (match) {
        if (p != list.begin()) matched_[p->finding.action] = event.time_ns;  // it may supersede an earlier one
        Finding f = std::move(p->finding);
        f.result = Result::kMatch;
        f.decided = event.seq;
        decided_.push_back(std::move(f));
        p = list.erase(p);
        continue;
      }
      p->changed = true;
      p->deleted = deleted;
      if (!deleted) p->last_seen = body;
      ++p;
    }
    if (list.empty()) open_.erase(open);
  }
  if (!any_managers_) return;
  if (deleted) {
    // A Deleted event names no deleter in managedFields.
    last_.erase(key);
    return;
  }
  auto prev = last_.find(key);
  std::vector<std::string> writers = Writers(prev == last_.end() ? nullptr : &prev->second, body);
  last_[key] = ManagedFieldsOnly(body);
  if (!UnorderedPaths(options_, key.kind).empty()) {
    auto before = last_bodies_.find(key);
    const bool reordered = before != last_bodies_.end() && OnlyReordered(key.kind, before->second, body);
    last_bodies_[key] = body;
    if (reordered && !writers.empty()) {
      ++reordered_;
      return;
    }
  }
  Unpredicted(event, key, predicted_by, writers, content_key);
}

bool Comparator::OnlyReordered(std::string_view kind, const Json& prev, const Json& body) const {
  Json a = prev, b = body;
  bool moved = false;
  for (const std::string& path : UnorderedPaths(options_, kind)) {
    Json* x = At(a, path);
    Json* y = At(b, path);
    if (x == nullptr || y == nullptr || !x->is_array() || !y->is_array()) continue;
    moved |= *x != *y;
    for (Json* list : {x, y}) {
      std::vector<std::pair<std::string, Json>> keyed;
      for (Json& e : *list) keyed.emplace_back(engine::Dump(e), std::move(e));
      std::sort(keyed.begin(), keyed.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
      Json sorted = Json::array();
      for (auto& [k, e] : keyed) sorted.push_back(std::move(e));
      *list = std::move(sorted);
    }
  }
  if (!moved) return false;
  for (Json* j : {&a, &b}) {
    if (!j->contains("metadata") || !(*j)["metadata"].is_object()) continue;
    for (const char* k : {"resourceVersion", "managedFields", "generation"}) (*j)["metadata"].erase(k);
  }
  return a == b;
}

// Writes by an operator's field manager that no prediction of its domain
// accounts for; for an unpaired object of a generated kind they wait out
// the window, in case recon predicts its create a little later.
void Comparator::Unpredicted(const engine::Event& event, const engine::ObjectKey& key,
                             const std::set<std::string>& predicted_by, const std::vector<std::string>& writers,
                             const std::string& content_key) {
  std::vector<Finding> found;
  for (const auto& [domain, names] : options_.managers) {
    if (predicted_by.contains(domain)) continue;
    for (const auto& w : writers) {
      if (std::find(names.begin(), names.end(), w) == names.end()) continue;
      Finding f;
      f.result = Result::kUnpredicted;
      f.domain = domain;
      f.verb = std::string(records::EventTypeName(event.type));
      f.object = key;
      f.cause = event.seq;
      f.time_ns = event.time_ns;
      f.manager = w;
      found.push_back(std::move(f));
    }
  }
  if (content_key.empty()) {
    for (auto& f : found) decided_.push_back(std::move(f));
    return;
  }
  unclaimed_.push_back({content_key, key, event.time_ns + options_.window_ns, std::move(found)});
}

std::vector<Finding> Comparator::TakeDecided() {
  std::vector<Finding> out;
  out.swap(decided_);
  return out;
}

std::vector<Finding> Comparator::Open() const {
  std::vector<Finding> out;
  for (const auto& [key, list] : open_) {
    for (const auto& p : list) {
      out.push_back(p.finding);
      out.back().result = Result::kPending;
    }
  }
  for (const auto& u : unclaimed_)
    for (const auto& f : u.unpredicted) out.push_back(f);
  return out;
}

Finding PredictionOf(const records::ActionRecord& a, int64_t time_ns) {
  Finding f;
  f.domain = a.domain;
  f.verb = a.verb;
  f.object = {a.object.group, a.object.kind, a.object.ns, a.object.name};
  f.action = engine::ActionId(a.cause_seq, a.index);
  f.cause = a.cause_seq;
  f.time_ns = time_ns;
  return f;
}

void SortFindings(std::vector<Finding>* findings) {
  // Action ids compare by their numbers, not as text ("10.0" after "9.0").
  auto index_of = [](const std::string& id) {
    uint32_t index = 0;
    size_t dot = id.find('.');
    if (dot != std::string::npos) std::from_chars(id.data() + dot + 1, id.data() + id.size(), index);
    return index;
  };
  std::stable_sort(findings->begin(), findings->end(), [&](const Finding& a, const Finding& b) {
    return std::make_tuple(a.cause, index_of(a.action), a.domain, static_cast<int>(a.result), a.object,
                           a.manager) < std::make_tuple(b.cause, index_of(b.action), b.domain,
                                                        static_cast<int>(b.result), b.object, b.manager);
  });
}

}  // namespace recon::shadow
