#include "domains/olm/plan_view.h"

#include "base/strings.h"
#include "domains/olm/reducer.h"

namespace recon::olm {

std::string StepObjectKey(std::string_view group, std::string_view kind, std::string_view ns,
                          std::string_view name) {
  return StrCat(group, "/", kind, "/", ns, "/", name);
}

const engine::Json* PlanWorldView::Get(std::string_view group, std::string_view kind, std::string_view ns,
                                       std::string_view name) const {
  const engine::Object* o = world_.Get(group, kind, ns, name);
  if (o == nullptr || !o->json().is_object()) return nullptr;
  const std::string key = StepObjectKey(group, kind, ns, name);
  if (updates_ != nullptr)
    if (auto it = updates_->find(key); it != updates_->end()) return &it->second;
  const std::vector<const engine::TrackedWrite*> sent =
      world_.writes().InFlight(kDomain, group, kind, ns, name);
  for (auto w = sent.rbegin(); w != sent.rend(); ++w) {
    if ((*w)->verb != "update") continue;
    if (!(*w)->json().is_object()) break;
    return &(*w)->json();
  }
  return &o->json();
}

bool PlanWorldView::Observed(std::string_view group, std::string_view kind, std::string_view ns,
                             std::string_view name) const {
  const engine::Object* o = world_.Get(group, kind, ns, name);
  return o != nullptr && engine::IsJsonObject(o->body());
}

std::vector<const engine::Json*> PlanWorldView::List(std::string_view group, std::string_view kind,
                                                     std::string_view ns) const {
  std::vector<const engine::Json*> out;
  for (const engine::Object* o : world_.ListIn(group, kind, ns))
    if (o->json().is_object()) out.push_back(&o->json());
  return out;
}

OwnCreate PlanWorldView::CreateOf(std::string_view group, std::string_view kind, std::string_view ns,
                                  std::string_view name) const {
  auto it = creates_.find(StepObjectKey(group, kind, ns, name));
  if (it == creates_.end()) return {};
  if (engine::Path(it->second.body, {"exists"}) == engine::Json(true) ||
      (!plan_.empty() && engine::GetString(it->second.body, {"plan"}) != plan_)) {
    // Answered AlreadyExists, or another plan's: once seen, the pass updates it.
    if (world_.Get(group, kind, ns, name) != nullptr) return {};
    return {OwnCreate::kInFlight, ""};
  }
  const engine::WriteTracker& t = world_.writes();
  if (const engine::TrackedWrite* p = t.Pending(kDomain, group, kind, ns, name);
      p != nullptr && p->action == it->second.action)
    return {p->answered ? OwnCreate::kLanded : OwnCreate::kInFlight, ""};
  if (const engine::TrackedWrite* r = t.LastRefused(kDomain, group, kind, ns, name);
      r != nullptr && r->action == it->second.action)
    return {OwnCreate::kFailed, r->error};
  if (world_.Get(group, kind, ns, name) != nullptr) return {OwnCreate::kLanded, ""};
  if (it->second.seq == seq_) return {OwnCreate::kInFlight, ""};
  return {};
}

std::optional<bool> PlanWorldView::Namespaced(std::string_view, std::string_view, std::string_view kind) const {
  // scheduling.k8s.io PriorityClass and the console's kinds are cluster-scoped.
  if (kind == "PriorityClass" || kind == "ConsoleCLIDownload" || kind == "ConsoleLink" ||
      kind == "ConsoleQuickStart" || kind == "ConsoleYAMLSample")
    return false;
  return true;
}

}  // namespace recon::olm
