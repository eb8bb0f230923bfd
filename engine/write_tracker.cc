#include "engine/write_tracker.h"

#include <algorithm>

#include "base/strings.h"
#include "engine/emit.h"

namespace recon::engine {

const Json& TrackedWrite::json() const {
  if (!json_) {
    auto parsed = ParseJson(body);
    json_ = std::make_shared<const Json>(parsed.ok() ? std::move(*parsed) : Json());
  }
  return *json_;
}

namespace {

bool Decimal(std::string_view s) {
  return !s.empty() && s.size() <= 19 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Kubernetes resourceVersions are opaque strings; etcd's (and the sim's)
// are decimal revisions. Only when both are decimal can "a is newer than b"
// be told; otherwise arrival order decides.
bool KnownNewer(std::string_view a, std::string_view b) {
  if (!Decimal(a) || !Decimal(b)) return false;
  return a.size() != b.size() ? a.size() > b.size() : a > b;
}

}  // namespace

bool WriteTracker::Tracked(std::string_view verb) {
  return verb == "create" || verb == "update" || verb == "updateStatus" || verb == "delete" ||
         verb == "patch";
}

WriteTracker::Key WriteTracker::KeyOf(std::string_view group, std::string_view kind, std::string_view ns,
                                      std::string_view name) {
  return recon::StrCat(group, "/", kind, "|", ns, "|", name);
}

const TrackedWrite* WriteTracker::Pending(std::string_view domain, std::string_view group,
                                          std::string_view kind, std::string_view ns,
                                          std::string_view name) const {
  auto po = objects_.find(KeyOf(group, kind, ns, name));
  if (po == objects_.end()) return nullptr;
  const PerObject& o = po->second;
  for (auto id = o.writes.rbegin(); id != o.writes.rend(); ++id) {
    const TrackedWrite& w = by_action_.at(*id);
    if (w.domain != domain) continue;
    if (!w.answered) {
      // Decided on or after the last change we took for another writer's.
      if (w.seq >= o.other_seq) return &w;
      // Sent before it: in a log whose answers carry resourceVersions, an
      // event that came while this write was unanswered may be its echo
      // (the watch often beats the HTTP answer), so the write holds until
      // its answer tells (a 409 if the change was another writer's). In a
      // log without them (hand-written, from before issue 19) nothing
      // would ever tell: the change wins.
      if (answers_carry_rv_) return &w;
      continue;
    }
    // An answered delete holds until the object's Deleted event drops it,
    // whatever resourceVersion its answer carried (the object as it was
    // before the delete, which the world may show already): a domain that
    // asked it again meanwhile would only get a 404.
    if (w.verb == "delete") return &w;
    if (!w.rv.empty()) {
      if (std::find(o.produced.begin(), o.produced.end(), w.rv) != o.produced.end()) return &w;
      continue;
    }
    // An answer without a resourceVersion (a log from before issue 19):
    // pending until the object's next event.
    if (o.seen_seq <= w.answered_seq) return &w;
  }
  return nullptr;
}

const TrackedWrite* WriteTracker::Refused(std::string_view domain, std::string_view group,
                                          std::string_view kind, std::string_view ns,
                                          std::string_view name) const {
  auto po = objects_.find(KeyOf(group, kind, ns, name));
  if (po == objects_.end()) return nullptr;
  auto r = po->second.refused.find(std::string(domain));
  return r == po->second.refused.end() ? nullptr : &r->second;
}

const WriteTracker::PerObject::Outcome* WriteTracker::OutcomeOf(std::string_view domain,
                                                                std::string_view group, std::string_view kind,
                                                                std::string_view ns,
                                                                std::string_view name) const {
  auto po = objects_.find(KeyOf(group, kind, ns, name));
  if (po == objects_.end()) return nullptr;
  auto oc = po->second.outcomes.find(std::string(domain));
  return oc == po->second.outcomes.end() ? nullptr : &oc->second;
}

const TrackedWrite* WriteTracker::LastRefused(std::string_view domain, std::string_view group,
                                              std::string_view kind, std::string_view ns,
                                              std::string_view name) const {
  const PerObject::Outcome* oc = OutcomeOf(domain, group, kind, ns, name);
  return oc != nullptr && oc->refused ? &*oc->refused : nullptr;
}

int WriteTracker::Refusals(std::string_view domain, std::string_view group, std::string_view kind,
                           std::string_view ns, std::string_view name) const {
  const PerObject::Outcome* oc = OutcomeOf(domain, group, kind, ns, name);
  return oc == nullptr ? 0 : oc->refusals;
}

const TrackedWrite* WriteTracker::LastLandedStatus(std::string_view domain, std::string_view group,
                                                   std::string_view kind, std::string_view ns,
                                                   std::string_view name) const {
  const PerObject::Outcome* oc = OutcomeOf(domain, group, kind, ns, name);
  return oc != nullptr && oc->landed ? &*oc->landed : nullptr;
}

std::vector<const TrackedWrite*> WriteTracker::InFlight(std::string_view domain, std::string_view group,
                                                        std::string_view kind, std::string_view ns,
                                                        std::string_view name) const {
  std::vector<const TrackedWrite*> out;
  auto po = objects_.find(KeyOf(group, kind, ns, name));
  if (po == objects_.end()) return out;
  for (const auto& id : po->second.writes) {
    const TrackedWrite& w = by_action_.at(id);
    if (w.domain == domain && !w.answered) out.push_back(&w);
  }
  return out;
}

bool WriteTracker::Produced(std::string_view group, std::string_view kind, std::string_view ns,
                            std::string_view name, std::string_view rv) const {
  auto po = objects_.find(KeyOf(group, kind, ns, name));
  if (po == objects_.end() || rv.empty()) return false;
  const auto& p = po->second.produced;
  return std::find(p.begin(), p.end(), rv) != p.end();
}

uint64_t WriteTracker::LastOtherSeq(std::string_view group, std::string_view kind, std::string_view ns,
                                    std::string_view name) const {
  auto po = objects_.find(KeyOf(group, kind, ns, name));
  return po == objects_.end() ? 0 : po->second.other_seq;
}

std::string WriteTracker::NewestProduced(std::string_view group, std::string_view kind, std::string_view ns,
                                         std::string_view name) const {
  auto po = objects_.find(KeyOf(group, kind, ns, name));
  if (po == objects_.end() || po->second.produced.empty()) return std::string();
  const PerObject& o = po->second;
  const std::string& ours = o.produced.back();
  // Ours is the newest only when its resourceVersion is newer than the one
  // seen last: an answer can come after the object moved on (another
  // writer's change, a delete and a create under the same name). Versions
  // that are not revisions (opaque to a client) are taken in arrival order.
  if (o.seen_rv.empty() || KnownNewer(ours, o.seen_rv)) return ours;
  if (Decimal(ours) && Decimal(o.seen_rv)) return std::string();
  return o.last == Origin::kOther ? std::string() : ours;
}

Origin WriteTracker::LastOrigin(std::string_view group, std::string_view kind, std::string_view ns,
                                std::string_view name) const {
  auto po = objects_.find(KeyOf(group, kind, ns, name));
  return po == objects_.end() ? Origin::kNone : po->second.last;
}

void WriteTracker::BeginEvent(const Event& event) {
  origin_ = event.IsObject() ? Origin::kOther : Origin::kNone;
  settled_.reset();
  answered_.reset();
}

void WriteTracker::Sent(const Event& event, const std::vector<records::ActionRecord>& actions, size_t from) {
  for (size_t i = from; i < actions.size(); ++i) {
    const records::ActionRecord& a = actions[i];
    if (!Tracked(a.verb)) continue;
    TrackedWrite w;
    w.action = ActionId(a.cause_seq, a.index);
    w.domain = a.domain;
    w.verb = a.verb;
    w.group = a.object.group;
    w.kind = a.object.kind;
    w.ns = a.object.ns;
    w.name = a.object.name;
    w.seq = event.seq;
    w.at_ns = event.time_ns;
    w.body = a.body;
    PerObject& o = objects_[KeyOf(w.group, w.kind, w.ns, w.name)];
    o.writes.push_back(w.action);
    if (auto oc = o.outcomes.find(w.domain); oc != o.outcomes.end()) oc->second.refused.reset();
    std::string id = w.action;
    by_action_[std::move(id)] = std::move(w);
    // Writes pile up per object while one is in flight: the work queue
    // keeps the oldest (sent) and the newest (waiting), and the ones
    // between were replaced there and get no answer. Beyond kMaxPerObject
    // one is forgotten, the one whose loss tells least: a write answered
    // already (its resourceVersion stays in `produced`, so its echo is
    // still told ours); else a retry a newer write replaced in the queue;
    // else one between the oldest unanswered and the newest. The write in
    // flight must stay: its answer tells whether an event seen meanwhile
    // was our echo (the olm soak, seed 10), and the rv it returns makes
    // that echo ours (four-domain soak, seed 11: a dead retry kept, the
    // write in flight forgotten, its echo then taken for another writer's
    // and olm's held decision lost). With none of those (a log without
    // answers), the oldest goes (a late answer to it settles nothing).
    if (o.writes.size() > kMaxPerObject) Drop(EvictionVictim(o, a.domain));
  }
}

std::string WriteTracker::EvictionVictim(const PerObject& o, std::string_view domain) const {
  std::vector<std::string> unanswered;
  for (const auto& id : o.writes) {
    const TrackedWrite& x = by_action_.at(id);
    if (x.answered) return id;
    if (x.domain == domain) unanswered.push_back(id);
  }
  // A retry with a newer write of the same kind behind it was replaced.
  for (size_t i = 0; i + 1 < unanswered.size(); ++i) {
    const TrackedWrite& x = by_action_.at(unanswered[i]);
    if (!x.retrying) continue;
    for (size_t k = i + 1; k < unanswered.size(); ++k)
      if ((by_action_.at(unanswered[k]).verb == "updateStatus") == (x.verb == "updateStatus"))
        return unanswered[i];
  }
  if (unanswered.size() >= 3) return unanswered[1];
  return o.writes.front();
}

void WriteTracker::OnResult(const Event& event, TrackedWrite& w, bool redecides) {
  TrackedWrite copy = w;
  copy.ok = event.ok;
  copy.status = event.status;
  copy.error = std::string(event.error);
  answered_ = copy;
  if (!event.ok && w.verb == "create" && event.status && *event.status == 409) {
    // AlreadyExists: the object is there and its event is late (upstream
    // counts it a success). Pending until the object's next event, as an
    // answer without a resourceVersion; nothing to decide again. When that
    // event came while the create was on its way, the world shows the
    // object already: done (else pending until some later change, and a
    // domain's failed update waits on it: samples soak, seed 14).
    DropReplaced(w);
    if (auto po = objects_.find(KeyOf(w.group, w.kind, w.ns, w.name));
        po != objects_.end() && po->second.seen_seq > w.seq && !po->second.deleted) {
      Drop(std::string(w.action));
      return;
    }
    w.answered = true;
    w.answered_seq = event.seq;
    return;
  }
  if (!event.ok) {
    // Sent again as it was by the runtime: still in flight.
    bool retried = event.status && (*event.status == 429 || *event.status >= 500);
    if (retried && !redecides) {
      w.retrying = true;
      return;
    }
    int s = event.status.value_or(0);
    if (s >= 400 && s < 500 && s != 404 && s != 408 && s != 429) {
      // Held until the object's next event; when that event came while
      // the write was on its way (a 409's newer object), it is here already.
      PerObject& o = objects_[KeyOf(w.group, w.kind, w.ns, w.name)];
      if (o.seen_seq <= w.seq) o.refused[w.domain] = copy;
      // The domain's last word on the object, unless it wrote it again since.
      const bool newer = std::any_of(o.writes.begin(), o.writes.end(), [&](const std::string& id) {
        const TrackedWrite& x = by_action_.at(id);
        return id != w.action && x.domain == w.domain && x.seq >= w.seq;
      });
      if (!newer) {
        PerObject::Outcome& oc = o.outcomes[w.domain];
        ++oc.refusals;
        oc.refused = copy;
      }
    }
    settled_ = std::move(copy);
    DropReplaced(w);
    Drop(w.action);
    return;
  }
  DropReplaced(w);
  w.answered = true;
  w.answered_seq = event.seq;
  w.rv = std::string(event.resource_version);
  w.uid = std::string(event.uid);
  if (!w.rv.empty()) answers_carry_rv_ = true;
  Key key = KeyOf(w.group, w.kind, w.ns, w.name);
  PerObject& o = objects_[key];
  PerObject::Outcome& oc = o.outcomes[w.domain];
  oc.refusals = 0;
  if (w.verb == "updateStatus") {
    oc.landed = w;
    oc.landed->ok = true;
  }
  if (w.verb == "delete") {
    // Gone with the Deleted event; when that came before the answer (the
    // watch beat the HTTP answer), the write is done now: held, it would
    // stand for a delete of the object created again since.
    if (o.deleted_seq > w.seq) Drop(std::string(w.action));
    return;
  }
  if (w.rv.empty()) return;  // a log from before issue 19: see Pending
  if (o.seen_seq > w.seq && w.rv != o.seen_rv) answered_->overtaken = true;
  const bool echo_seen = w.rv == o.seen_rv || std::any_of(o.held.begin(), o.held.end(), [&](const auto& h) {
                           return h.first > w.seq && h.second == w.rv;
                         });
  if (echo_seen) {
    // Its echo came before its answer (two connections), or the write
    // changed nothing: the world already shows it (or, with newer events
    // after the echo, has moved past it).
    if (o.last == Origin::kOther && o.other_rv == w.rv) {
      o.last = Origin::kOurs;
      o.other_seq = o.prev_other_seq;
    }
    Drop(w.action);
    return;
  }
  o.produced.push_back(w.rv);
  if (o.produced.size() > kMaxProduced) o.produced.pop_front();
}

void WriteTracker::OnObject(const Event& event) {
  auto po = objects_.find(KeyOf(event.group, event.kind, event.ns, event.name));
  if (po == objects_.end()) return;  // never written: another writer's (origin_ is kOther)
  const Key key = po->first;
  PerObject& o = po->second;
  o.refused.clear();  // the object moved on: a refused write may be decided again
  std::string rv(event.resource_version);
  std::vector<std::string> done;  // answered writes the world now shows (or overrides)
  if (event.type == records::EventType::kDeleted) {
    bool ours = false;
    for (const auto& id : o.writes) {
      const TrackedWrite& w = by_action_.at(id);
      if (w.verb == "delete") ours = true;
      if (w.answered) done.push_back(id);
    }
    origin_ = ours ? Origin::kOurs : Origin::kOther;
    // The deletion is the newest state: writes still unanswered wait for
    // their answers (404) before they count again.
    o.prev_other_seq = o.other_seq;
    o.other_seq = event.seq;
    o.other_rv.clear();
    o.held.clear();
    o.produced.clear();
    o.seen_rv.clear();
    o.outcomes.clear();
    o.deleted = true;
    o.deleted_seq = event.seq;
  } else {
    o.deleted = false;
    auto hit = rv.empty() ? o.produced.end() : std::find(o.produced.begin(), o.produced.end(), rv);
    if (hit != o.produced.end()) {
      origin_ = Origin::kOurs;
      // Watch events of one object come in order: every earlier write of
      // ours has landed too.
      std::set<std::string> seen(o.produced.begin(), hit + 1);
      o.produced.erase(o.produced.begin(), hit + 1);
      for (const auto& id : o.writes) {
        const TrackedWrite& w = by_action_.at(id);
        if (w.answered && (w.rv.empty() || seen.contains(w.rv))) done.push_back(id);
      }
    } else {
      bool legacy = false;
      for (const auto& id : o.writes) {
        const TrackedWrite& w = by_action_.at(id);
        if (w.answered && w.rv.empty()) {
          legacy = true;
          done.push_back(id);
        }
      }
      if (legacy) {
        origin_ = Origin::kOurs;  // the answer carried no rv: its echo is the next event
        // (A create refused AlreadyExists.) An answered write of ours whose
        // echo was lost is passed by it as by another writer's change
        // (below), unless known newer; else it would stay pending for good
        // and the domain never decide on the object again (samples soak).
        for (const auto& id : o.writes) {
          const TrackedWrite& w = by_action_.at(id);
          if (w.answered && !w.rv.empty() && !KnownNewer(w.rv, rv)) {
            done.push_back(id);
            o.produced.erase(std::remove(o.produced.begin(), o.produced.end(), w.rv), o.produced.end());
          }
        }
      } else {
        origin_ = Origin::kOther;
        o.prev_other_seq = o.other_seq;
        o.other_seq = event.seq;
        o.other_rv = rv;
        // Kept only while a write sent before it is unanswered (its answer
        // may name this event as its echo).
        uint64_t oldest = UINT64_MAX;
        for (const auto& id : o.writes) {
          const TrackedWrite& w = by_action_.at(id);
          if (!w.answered) oldest = std::min(oldest, w.seq);
        }
        while (!o.held.empty() && o.held.front().first <= oldest) o.held.pop_front();
        if (oldest < event.seq && !rv.empty()) o.held.emplace_back(event.seq, rv);
        if (o.held.size() > kMaxPerObject * 2) o.held.pop_front();
        // An answered write is overridden unless it is known to be newer.
        for (const auto& id : o.writes) {
          const TrackedWrite& w = by_action_.at(id);
          if (w.answered && !KnownNewer(w.rv, rv)) done.push_back(id);
        }
      }
    }
    o.seen_rv = rv;
  }
  o.last = origin_;
  o.seen_seq = event.seq;
  for (const auto& id : done) Drop(id);
  Prune(key);
}

void WriteTracker::Drop(const std::string& action) {
  auto it = by_action_.find(action);
  if (it == by_action_.end()) return;
  const TrackedWrite& w = it->second;
  Key key = KeyOf(w.group, w.kind, w.ns, w.name);
  auto po = objects_.find(key);
  if (po != objects_.end()) {
    auto& ws = po->second.writes;
    ws.erase(std::remove(ws.begin(), ws.end(), action), ws.end());
  }
  by_action_.erase(it);
  Prune(key);
}

void WriteTracker::Prune(const Key& key) {
  auto po = objects_.find(key);
  if (po == objects_.end()) return;
  const PerObject& o = po->second;
  // Kept while the object exists (its origin and last other writer count
  // after our writes settle); gone with it.
  if (o.writes.empty() && o.produced.empty() && o.refused.empty() && o.outcomes.empty() &&
      (o.deleted || o.last == Origin::kNone))
    objects_.erase(po);
}

void WriteTracker::DropReplaced(const TrackedWrite& answered) {
  auto po = objects_.find(KeyOf(answered.group, answered.kind, answered.ns, answered.name));
  if (po == objects_.end()) return;
  std::vector<std::string> replaced;
  // The work queue keys a status write and a write of the object apart
  // (runtime/work_queue.h WorkKey): one never replaces the other, and an
  // updateStatus sent before an update of the object is still answered
  // (four-domain soak, seed 5: aro's conflicting status write, dropped
  // here when the annotation update behind it was answered, was never
  // written again).
  const bool status = answered.verb == "updateStatus";
  for (const auto& id : po->second.writes) {
    if (id == answered.action) break;  // oldest first: the rest are newer
    const TrackedWrite& w = by_action_.at(id);
    if (w.domain == answered.domain && !w.answered && (w.verb == "updateStatus") == status)
      replaced.push_back(id);
  }
  for (const auto& id : replaced) Drop(id);
}

void WriteTracker::Clear() {
  answers_carry_rv_ = false;
  by_action_.clear();
  objects_.clear();
  origin_ = Origin::kNone;
  settled_.reset();
  answered_.reset();
}

}  // namespace recon::engine
