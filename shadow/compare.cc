#include "shadow/compare.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <tuple>

#include "engine/emit.h"
#include "shadow/writers.h"

namespace recon::shadow {
namespace {

using engine::Json;

bool IsPrediction(std::string_view verb) {
  return verb == "create" || verb == "update" || verb == "updateStatus" || verb == "delete";
}

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
  }
  return "pending";
}

struct Comparator::Prediction {
  Finding finding;
  int64_t deadline_ns = 0;
  Json predicted;
  // What the object became within the window, while nothing matched.
  bool changed = false, deleted = false;
  Json last_seen;
};

Comparator::Comparator(Options options) : options_(std::move(options)) {
  for (const auto& [domain, names] : options_.managers)
    if (!names.empty()) any_managers_ = true;
}

Comparator::~Comparator() = default;

void Comparator::Observe(const engine::Event& event, std::span<const engine::ActionRecord> actions,
                         const engine::World* world) {
  now_ns_ = std::max(now_ns_, event.time_ns);
  Expire(now_ns_);
  if (event.IsObject()) OnObject(event);
  for (const auto& a : actions) {
    if (!IsPrediction(a.verb)) continue;
    Prediction p;
    p.finding.domain = a.domain;
    p.finding.verb = a.verb;
    p.finding.object = {a.object.group, a.object.kind, a.object.ns, a.object.name};
    p.finding.action = engine::ActionId(a.cause_seq, a.index);
    p.finding.cause = a.cause_seq;
    p.finding.time_ns = event.time_ns;
    p.deadline_ns = event.time_ns + options_.window_ns;
    auto parsed = engine::ParseJson(a.body);
    p.predicted = parsed.ok() ? std::move(*parsed) : Json::object();
    if (auto seq = world == nullptr ? std::nullopt : AlreadyHolds(p, *world, event.seq)) {
      p.finding.result = Result::kMatch;
      p.finding.decided = *seq;
      decided_.push_back(std::move(p.finding));
      continue;
    }
    open_[p.finding.object].push_back(std::move(p));
  }
}

std::optional<uint64_t> Comparator::AlreadyHolds(const Prediction& p, const engine::World& world,
                                                 uint64_t now) {
  const auto& k = p.finding.object;
  const engine::Object* o = world.Get(k.group, k.kind, k.ns, k.name);
  if (p.finding.verb == "delete") return o == nullptr ? std::optional<uint64_t>(now) : std::nullopt;
  if (o == nullptr) return std::nullopt;
  bool holds = (p.finding.verb == "updateStatus" ? DiffStatus(p.predicted, o->json())
                                                 : DiffSpec(p.predicted, o->json()))
                   .empty();
  return holds ? std::optional<uint64_t>(o->seq()) : std::nullopt;
}

// Predictions whose window closed before `now_ns`: the object changed but
// not as predicted (differs), or nothing happened (missed).
void Comparator::Expire(int64_t now_ns) {
  for (auto it = open_.begin(); it != open_.end();) {
    auto& list = it->second;
    for (auto p = list.begin(); p != list.end();) {
      if (p->deadline_ns >= now_ns) {
        ++p;
        continue;
      }
      Finding f = std::move(p->finding);
      if (!p->changed) {
        f.result = Result::kMissed;
      } else {
        f.result = Result::kDiffers;
        if (f.verb == "delete") {
          f.diffs = {{"(object)", "deleted", "present"}};
        } else if (p->deleted) {
          f.diffs = {{"(object)", "present", "deleted"}};
        } else {
          f.diffs = f.verb == "updateStatus" ? DiffStatus(p->predicted, p->last_seen)
                                             : DiffSpec(p->predicted, p->last_seen);
        }
      }
      decided_.push_back(std::move(f));
      p = list.erase(p);
    }
    it = list.empty() ? open_.erase(it) : std::next(it);
  }
}

void Comparator::OnObject(const engine::Event& event) {
  engine::ObjectKey key{std::string(event.group), std::string(event.kind), std::string(event.ns),
                        std::string(event.name)};
  auto open = open_.find(key);
  bool deleted = event.type == engine::EventType::kDeleted;
  bool need_body = open != open_.end() || (any_managers_ && !deleted);
  Json body;
  if (need_body) {
    auto parsed = engine::ParseJson(event.body);
    body = parsed.ok() ? std::move(*parsed) : Json::object();
  }
  // Domains that had a prediction of this object open when it changed:
  // their operator's write is accounted for by that prediction.
  std::set<std::string> predicted_by;
  if (open != open_.end()) {
    auto& list = open->second;
    for (auto p = list.begin(); p != list.end();) {
      predicted_by.insert(p->finding.domain);
      bool match = false;
      if (p->finding.verb == "delete") {
        match = deleted;
      } else if (!deleted) {
        match = (p->finding.verb == "updateStatus" ? DiffStatus(p->predicted, body)
                                                   : DiffSpec(p->predicted, body))
                    .empty();
      }
      if (match) {
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
  for (const auto& [domain, names] : options_.managers) {
    if (predicted_by.contains(domain)) continue;
    for (const auto& w : writers) {
      if (std::find(names.begin(), names.end(), w) == names.end()) continue;
      Finding f;
      f.result = Result::kUnpredicted;
      f.domain = domain;
      f.verb = std::string(engine::EventTypeName(event.type));
      f.object = key;
      f.cause = event.seq;
      f.time_ns = event.time_ns;
      f.manager = w;
      decided_.push_back(std::move(f));
    }
  }
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
  return out;
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
