#include "domains/aro/cluster_operator.h"

#include <algorithm>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/strings.h"
#include "domains/aro/common.h"
#include "engine/time_format.h"

namespace recon::aro {
namespace {

constexpr std::string_view kConfigGroup = "config.openshift.io";

bool HasSuffix(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

void AppendMessageLines(const Condition& c, std::vector<std::string>* out) {
  if (c.message.empty()) return;
  for (absl::string_view line : absl::StrSplit(Av(c.message), '\n')) {
    out->push_back(recon::StrCat(c.type, ": ", Sv(line)));
  }
}

std::string LatestLtt(const std::vector<const Condition*>& conds) {
  std::string latest;  // RFC 3339 UTC strings order like the times they name
  for (const auto* c : conds) latest = std::max(latest, c->last_transition_time);
  return latest;
}

Json OwnerReference(const engine::Object& cluster) {
  return {{"apiVersion", "aro.openshift.io/v1alpha1"},
          {"kind", "Cluster"},
          {"name", "cluster"},
          {"uid", engine::GetString(cluster.json(), {"metadata", "uid"})},
          {"controller", true},
          {"blockOwnerDeletion", true}};
}

}  // namespace

Condition UnionCondition(const std::vector<Condition>& conds, std::string_view suffix,
                         std::string_view out_type, std::string_view default_status) {
  std::vector<const Condition*> matching, bad;
  for (const auto& c : conds) {
    if (!HasSuffix(c.type, suffix)) continue;
    matching.push_back(&c);
    if (c.status != default_status) bad.push_back(&c);
  }
  Condition out{std::string(out_type), "", "", "", ""};
  if (matching.empty()) {
    out.status = kUnknown;
    out.reason = "NoData";
    return out;
  }
  if (bad.empty()) {
    std::vector<std::string> lines;
    for (const auto* c : matching) AppendMessageLines(*c, &lines);
    out.status = default_status;
    out.reason = "AsExpected";
    out.message = lines.empty() ? "All is well" : absl::StrJoin(lines, "\n");
    out.last_transition_time = LatestLtt(matching);
    return out;
  }
  std::sort(bad.begin(), bad.end(), [](const Condition* a, const Condition* b) { return a->type < b->type; });
  std::string_view opposite = default_status == kTrue ? kFalse : kTrue;
  out.status = std::any_of(bad.begin(), bad.end(), [&](const Condition* c) { return c->status == opposite; })
                   ? opposite
                   : kUnknown;
  std::vector<std::string> lines, reasons;
  for (const auto* c : bad) {
    AppendMessageLines(*c, &lines);
    std::string r = c->type.substr(0, c->type.size() - suffix.size());
    if (!c->reason.empty()) recon::StrAppend(&r, "_", c->reason);
    reasons.push_back(std::move(r));
  }
  std::sort(reasons.begin(), reasons.end());
  out.reason = absl::StrJoin(reasons, "::");
  out.message = absl::StrJoin(lines, "\n");
  out.last_transition_time = LatestLtt(bad);
  return out;
}

void ClusterOperatorAro::Reconcile(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                                   const ClusterStatus& status, const Options& options) {
  const engine::Object* cluster = GetCluster(world);
  if (cluster == nullptr) return;
  std::string now = engine::FormatRfc3339Seconds(event.time_ns);
  Json versions = Json::array({{{"name", "operator"}, {"version", options.operator_version}}});
  const engine::Object* co = world.Get(kConfigGroup, "ClusterOperator", "", "aro");
  // Our last write that the world does not show yet (engine/write_tracker.h).
  const engine::TrackedWrite* pending =
      world.writes().Pending(kDomain, kConfigGroup, "ClusterOperator", "", "aro");
  Json current_status;
  if (co == nullptr) {
    // A deleted ClusterOperator is created again (upstream: GET NotFound),
    // once: not while our create is not observed yet.
    if (pending != nullptr && pending->verb == "create") return;
    // The CRD requires a spec, and the server drops a create's status
    // (status subresource): upstream's Initializing conditions never show
    // on a real cluster. The status is written through /status once the
    // create's Added event is observed.
    emit.Create(
        {{"apiVersion", "config.openshift.io/v1"},
         {"kind", "ClusterOperator"},
         {"metadata", {{"name", "aro"}, {"ownerReferences", Json::array({OwnerReference(*cluster)})}}},
         {"spec", Json::object()}});
    return;
  }
  {
    const Json& refs = engine::Path(co->json(), {"metadata", "ownerReferences"});
    Json want = OwnerReference(*cluster);
    bool owned = false;
    if (refs.is_array()) {
      for (const auto& r : refs) owned |= r == want;
    }
    if (!owned) {
      Json obj = co->json();  // carries its resourceVersion
      obj.erase("status");    // ignored on the main resource
      obj["metadata"]["ownerReferences"] = Json::array({want});
      emit.Update(obj);
    }
  }
  // Our last status write, unless the world shows it or a newer change.
  current_status = engine::Path(co->json(), {"status"});
  if (pending != nullptr && pending->verb == "updateStatus") {
    auto body = engine::ParseJson(pending->body);
    if (body.ok()) current_status = engine::Path(*body, {"status"});
  }
  std::vector<Condition> current;
  if (const Json& list = engine::Path(current_status, {"conditions"}); list.is_array()) {
    for (const auto& c : list) current.push_back(Condition::FromJson(c));
  }
  std::vector<Condition> conds = status.Effective(world);
  std::vector<Condition> desired = {UnionCondition(conds, "Available", "Available", kTrue),
                                    UnionCondition(conds, "Progressing", "Progressing", kFalse),
                                    Condition{"Degraded", "False", "", "AsExpected", ""}};
  std::vector<Condition> next = current;
  for (auto& d : desired) {
    // library-go SetStatusCondition: the LTT moves only with the status.
    Condition* existing = nullptr;
    for (auto& c : next) {
      if (c.type == d.type) existing = &c;
    }
    if (existing == nullptr) {
      if (d.last_transition_time.empty()) d.last_transition_time = now;
      next.push_back(d);
    } else {
      std::string ltt = existing->status == d.status     ? existing->last_transition_time
                        : d.last_transition_time.empty() ? now
                                                         : d.last_transition_time;
      *existing = d;
      existing->last_transition_time = ltt;
    }
  }
  Json next_status = current_status.is_object() ? current_status : Json::object();
  Json list = Json::array();
  for (const auto& c : next) list.push_back(c.ToJson());
  next_status["conditions"] = std::move(list);
  next_status["versions"] = versions;
  if (next_status == current_status) return;
  Json metadata = {{"name", "aro"}};
  // A custom resource update without a resourceVersion is refused.
  if (std::string rv = engine::GetString(co->json(), {"metadata", "resourceVersion"}); !rv.empty())
    metadata["resourceVersion"] = rv;
  emit.UpdateStatus({{"apiVersion", "config.openshift.io/v1"},
                     {"kind", "ClusterOperator"},
                     {"metadata", std::move(metadata)},
                     {"status", next_status}});
}

bool ClusterOperatorAro::OnActionResult(const engine::Event& event, const engine::World& world,
                                        engine::Emit& emit) {
  const engine::TrackedWrite* w = world.writes().answered();
  if (w == nullptr || w->domain != kDomain || w->group != kConfigGroup || w->kind != "ClusterOperator")
    return false;
  const engine::TrackedWrite* settled = world.writes().settled();
  if (settled != nullptr && settled->status == 409) {
    requeue_.Backoff(emit, event.time_ns);
  } else if (w->ok) {
    requeue_.Forget();
  }
  return true;
}

bool ClusterOperatorAro::OnTimer(const engine::Event& event) {
  if (requeue_.IsStale(event.time_ns)) return false;
  requeue_.Forget();
  return true;
}

}  // namespace recon::aro
