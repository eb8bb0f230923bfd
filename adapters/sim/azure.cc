#include "adapters/sim/azure.h"

#include "base/strings.h"

namespace recon::sim {

bool IsAzure(const ObjectKey& key) { return key.group == kAzureGroup; }

namespace {

// ARM provisions a subnet's service endpoints as part of the PUT and shows
// each as Succeeded; the ARO operator counts only Succeeded ones as present
// and appends the others again, so an endpoint left without a state grew a
// duplicate on every reconcile.
void ProvisionServiceEndpoints(const ObjectKey& key, Json& subnet) {
  if (key.kind != "Subnet" || !subnet.contains("spec") || !subnet["spec"].is_object()) return;
  auto it = subnet["spec"].find("serviceEndpoints");
  if (it == subnet["spec"].end() || !it->is_array()) return;
  for (Json& e : *it) {
    if (e.is_object() && !e.contains("provisioningState")) e["provisioningState"] = "Succeeded";
  }
}

}  // namespace

ApiResult AzureApply(ObjectStore& objects, std::string_view verb, const ObjectKey& key, const Json& object,
                     int64_t now_ns) {
  const Json* current = objects.Get(key);
  auto not_found = [&]() {
    return Failure(404, "ResourceNotFound", recon::StrCat("The Resource '", key.name, "' was not found."));
  };
  ApiResult r;
  // Every change moves the server's resourceVersion: a watch delivers only
  // changes past the version it has seen, so a change left at the current
  // one never reached a watcher that was caught up (an NSG detached outside
  // the operator went unseen until a relist).
  if (verb == "delete") {
    if (current == nullptr) return not_found();
    objects.NextResourceVersion();
    r.events.push_back(WatchEvent(records::EventType::kDeleted, *current, now_ns));
    objects.Erase(key);
    return r;
  }
  if (verb != "create" && verb != "update") {
    return Failure(405, "MethodNotAllowed", recon::StrCat("Azure resources have no ", verb));
  }
  if (verb == "update" && current == nullptr) return not_found();
  // ARM keeps no Kubernetes metadata: what was PUT is what a GET returns,
  // plus the resourceVersion any object served through the Kubernetes API
  // has (a watch resumes from it, a client tells changes apart by it).
  Json next = object;
  next["metadata"] = Json{{"name", key.name}};
  ProvisionServiceEndpoints(key, next);
  if (current != nullptr) {
    Json cmp = *current;
    cmp["metadata"] = Json{{"name", key.name}};
    if (SameJson(next, cmp)) return r;
  }
  r.status = current == nullptr ? 201 : 200;
  next["metadata"]["resourceVersion"] = objects.NextResourceVersion();
  r.events.push_back(WatchEvent(
      current == nullptr ? records::EventType::kAdded : records::EventType::kModified, next, now_ns));
  objects.Put(key, std::move(next));
  return r;
}

}  // namespace recon::sim
