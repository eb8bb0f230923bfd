#include "shadow/audit_compare.h"

#include <algorithm>

#include "base/strings.h"
#include "shadow/generated.h"

namespace recon::shadow {
namespace {

using engine::Json;

// The class a write or a prediction belongs to; pairs are of one class.
std::string ClassOf(const AuditedWrite& w) {
  if (w.verb == "create") return "create";
  if (w.verb == "delete") return "delete";
  return w.status ? "updateStatus" : "update";
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string Program(const std::string& user_agent) { return user_agent.substr(0, user_agent.find('/')); }

class Pairing {
 public:
  Pairing(const std::vector<AuditedWrite>& writes, const std::vector<int64_t>& event_times, const Options& options,
          const AuditOptions& audit)
      : writes_(writes), event_times_(event_times), options_(options), audit_(audit),
        claimed_(writes.size(), false) {
    for (size_t i = 0; i < writes.size(); ++i) {
      owner_.push_back(Owner(writes[i]));
      if (!owner_.back().empty()) by_object_[writes[i].object].push_back(i);
    }
    MarkNoOps();
    end_ns_ = event_times.empty() ? 0 : event_times.back();
    if (!writes.empty()) end_ns_ = std::max(end_ns_, writes.back().time_ns);
  }

  void Predictions(const std::vector<PredictionRecord>& predictions) {
    for (size_t i = 0; i < predictions.size(); ++i) One(predictions, i);
  }

  void Leftovers() {
    for (size_t i = 0; i < writes_.size(); ++i) {
      if (claimed_[i] || owner_[i].empty()) continue;
      const AuditedWrite& w = writes_[i];
      Finding f;
      f.result = Result::kUnpredicted;
      f.domain = owner_[i];
      f.verb = w.status ? w.verb + "/status" : w.verb;
      f.object = w.object;
      f.cause = SeqAt(w.time_ns);
      f.time_ns = w.time_ns;
      f.manager = w.user_agent.empty() ? w.user : Program(w.user_agent);
      f.audit_id = w.id;
      if (w.code >= 300) {
        f.detail = recon::StrCat("HTTP ", w.code);
      } else if (no_op_[i]) {
        f.detail = "no-op";
      }
      out_.push_back(std::move(f));
    }
  }

  std::vector<Finding> Take() { return std::move(out_); }

 private:
  // The domain whose operator sent the write, or "" (another client, or a
  // kind the domain does not write).
  std::string Owner(const AuditedWrite& w) const {
    for (const auto& [domain, kinds] : audit_.kinds) {
      if (!kinds.contains({w.object.group, w.object.kind})) continue;
      auto u = audit_.users.find(domain);
      if (u != audit_.users.end() && Contains(u->second, w.user)) return domain;
      auto p = audit_.programs.find(domain);
      if (p != audit_.programs.end() && !w.user_agent.empty() && Contains(p->second, Program(w.user_agent)))
        return domain;
    }
    return "";
  }

  // A successful write whose answer kept the object's resourceVersion
  // changed nothing (the server stores nothing, the watch shows nothing).
  void MarkNoOps() {
    no_op_.assign(writes_.size(), false);
    std::map<engine::ObjectKey, std::string> last_rv;
    for (size_t i = 0; i < writes_.size(); ++i) {
      const AuditedWrite& w = writes_[i];
      if (w.code >= 300 || w.resource_version.empty()) continue;
      auto it = last_rv.find(w.object);
      if (it != last_rv.end() && it->second == w.resource_version && w.verb != "create" && w.verb != "delete")
        no_op_[i] = true;
      last_rv[w.object] = w.resource_version;
    }
  }

  uint64_t SeqAt(int64_t time_ns) const {
    auto it = std::upper_bound(event_times_.begin(), event_times_.end(), time_ns);
    return static_cast<uint64_t>(it - event_times_.begin());
  }

  bool InWindow(const AuditedWrite& w, const Finding& f) const {
    return w.time_ns >= f.time_ns - audit_.slack_ns && w.time_ns <= f.time_ns + options_.window_ns;
  }

  std::vector<FieldDiff> Diff(const PredictionRecord& p, const AuditedWrite& w) const {
    if (p.finding.verb == "delete") return {};
    DiffRules rules;
    if (auto it = options_.free_text.find(p.finding.domain); it != options_.free_text.end())
      rules.free_text = it->second;
    if (auto it = options_.unordered.find(p.finding.domain); it != options_.unordered.end())
      rules.unordered = it->second;
    if (auto it = options_.opaque.find(p.finding.domain); it != options_.opaque.end()) rules.opaque = it->second;
    rules.generated = &generated_;
    rules.aliases = &aliases_;
    if (w.body.is_null()) return {{"(object)", "written", recon::StrCat("HTTP ", w.code, ", no body")}};
    if (p.finding.verb == "updateStatus") return DiffStatus(p.body, w.body, rules);
    std::vector<FieldDiff> diffs = DiffSpec(p.body, w.body, rules);
    if (const GeneratedKind* g = GeneratedKindOf(w.object.group, w.object.kind))
      DropUnorderedDiffs(*g, p.body, w.body, &diffs);
    return diffs;
  }

  // A create of a generated kind: pairs with the operator's create of the
  // same content in the window, which gives the object its name.
  void PairGenerated(const PredictionRecord& p, Finding* f) {
    const GeneratedKind* g = GeneratedKindOf(f->object.group, f->object.kind);
    if (g == nullptr || p.finding.verb != "create") return;
    generated_[f->object.name] = std::string(g->prefix);
    std::string key = ContentKey(*g, p.body);
    for (size_t i = 0; i < writes_.size(); ++i) {
      const AuditedWrite& w = writes_[i];
      if (claimed_[i] || owner_[i] != f->domain || ClassOf(w) != "create" || !InWindow(w, *f)) continue;
      if (w.object.group != f->object.group || w.object.kind != f->object.kind || w.object.ns != f->object.ns)
        continue;
      if (ContentKey(*g, w.body) != key) continue;
      aliases_[f->object.name] = w.object.name;
      alias_keys_[f->object] = w.object;
      return;
    }
  }

  bool Superseded(const std::vector<PredictionRecord>& predictions, size_t i, const engine::ObjectKey& key) const {
    const Finding& f = predictions[i].finding;
    for (size_t j = i + 1; j < predictions.size(); ++j) {
      const Finding& later = predictions[j].finding;
      if (later.time_ns > f.time_ns + options_.window_ns) break;
      auto alias = alias_keys_.find(later.object);
      const engine::ObjectKey& later_key = alias == alias_keys_.end() ? later.object : alias->second;
      if (later.domain != f.domain || later_key != key || (later.verb == "updateStatus") != (f.verb == "updateStatus"))
        continue;
      // Only if the operator reached the later one's state: it went past.
      if (auto on = by_object_.find(key); on != by_object_.end()) {
        for (size_t w : on->second) {
          if (!claimed_[w] && ClassOf(writes_[w]) == later.verb && InWindow(writes_[w], later) &&
              Diff(predictions[j], writes_[w]).empty())
            return true;
        }
      }
    }
    return false;
  }

  void One(const std::vector<PredictionRecord>& predictions, size_t index) {
    const PredictionRecord& p = predictions[index];
    Finding f = p.finding;
    if (auto alias = alias_keys_.find(f.object); alias != alias_keys_.end()) {
      f.predicted_name = f.object.name;
      f.object = alias->second;
    } else {
      PairGenerated(p, &f);
      if (auto paired = alias_keys_.find(f.object); paired != alias_keys_.end()) {
        f.predicted_name = f.object.name;
        f.object = paired->second;
      }
    }
    std::vector<size_t> candidates;
    if (auto on = by_object_.find(f.object); on != by_object_.end()) {
      for (size_t i : on->second) {
        const AuditedWrite& w = writes_[i];
        if (!claimed_[i] && owner_[i] == f.domain && ClassOf(w) == f.verb && InWindow(w, f)) candidates.push_back(i);
      }
    }
    // Writes the server carried out before those it refused (a delete
    // answered 404, a create 409): a prediction is of the write that changed
    // the cluster, and the refused one stays unpredicted.
    std::stable_partition(candidates.begin(), candidates.end(), [&](size_t i) { return writes_[i].code < 300; });
    for (size_t i : candidates) {
      if (!Diff(p, writes_[i]).empty()) continue;
      Claim(i, &f);
      f.result = Result::kMatch;
      out_.push_back(std::move(f));
      return;
    }
    // Predicted again before the operator's write was seen (a shadow's
    // writes are never sent, so each event re-predicts the same state):
    // a write an earlier identical prediction claimed satisfies this one
    // too, as a state seen within the window does on the watch.
    if (auto on = by_object_.find(f.object); on != by_object_.end()) {
      for (size_t i : on->second) {
        const AuditedWrite& w = writes_[i];
        if (!claimed_[i] || owner_[i] != f.domain || ClassOf(w) != f.verb || !InWindow(w, f) ||
            w.time_ns < f.time_ns || !Diff(p, w).empty())
          continue;
        f.audit_id = w.id;
        f.decided = SeqAt(w.time_ns);
        f.result = Result::kMatch;
        out_.push_back(std::move(f));
        return;
      }
    }
    if (Superseded(predictions, index, f.object)) {
      f.result = Result::kSuperseded;
    } else if (!candidates.empty()) {
      f.diffs = Diff(p, writes_[candidates.front()]);
      Claim(candidates.front(), &f);
      f.result = Result::kDiffers;
    } else {
      f.result = f.time_ns + options_.window_ns >= end_ns_ ? Result::kPending : Result::kMissed;
    }
    out_.push_back(std::move(f));
  }

  void Claim(size_t i, Finding* f) {
    claimed_[i] = true;
    f->audit_id = writes_[i].id;
    f->decided = SeqAt(writes_[i].time_ns);
  }

  const std::vector<AuditedWrite>& writes_;
  const std::vector<int64_t>& event_times_;
  const Options& options_;
  const AuditOptions& audit_;
  std::vector<bool> claimed_, no_op_;
  std::vector<std::string> owner_;
  int64_t end_ns_ = 0;
  std::map<std::string, std::string> generated_, aliases_;
  std::map<engine::ObjectKey, engine::ObjectKey> alias_keys_;
  std::map<engine::ObjectKey, std::vector<size_t>> by_object_;  // the operators' writes, in log order
  std::vector<Finding> out_;
};

}  // namespace

std::vector<Finding> CompareAudit(const std::vector<PredictionRecord>& predictions,
                                  const std::vector<AuditedWrite>& writes, const std::vector<int64_t>& event_times,
                                  const Options& options, const AuditOptions& audit) {
  Pairing pairing(writes, event_times, options, audit);
  pairing.Predictions(predictions);
  pairing.Leftovers();
  std::vector<Finding> out = pairing.Take();
  SortFindings(&out);
  return out;
}

}  // namespace recon::shadow
