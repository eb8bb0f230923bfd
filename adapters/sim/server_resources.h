// The resource types the simulated API server serves: a built-in table
// (what every served cluster has, plus what recon's domains touch) merged
// with the types the cli collects from the domains. Data, not code: one
// list, shared with the cli through BuiltinResources().
#ifndef RECON_ADAPTERS_SIM_SERVER_RESOURCES_H_
#define RECON_ADAPTERS_SIM_SERVER_RESOURCES_H_

#include <string>
#include <string_view>
#include <vector>

#include "engine/json.h"
#include "engine/resource.h"

namespace recon::sim {

// One served resource: its type and the verbs discovery advertises.
struct ServedResource {
  engine::ResourceType type;
  std::vector<std::string> verbs;  // get, list, watch, create, update, patch, delete
  std::string singular;            // lower-case kind
  engine::Json printer_columns;    // a CRD's additionalPrinterColumns; null otherwise
  // Served by the API server's own code, not a CRD: as kube-apiserver
  // does, a list's items then carry no apiVersion or kind.
  bool builtin = false;
};

// The types every simulated cluster serves (core, apps, coordination,
// OpenShift config/samples/image/template, OLM, ARO, Azure stand-ins, DFA).
std::vector<engine::ResourceType> BuiltinResources();

class ResourceTable {
 public:
  // Built-ins first, then `extra` types not already present (by group,
  // version and plural).
  explicit ResourceTable(const std::vector<engine::ResourceType>& extra = {});

  const std::vector<ServedResource>& all() const { return resources_; }
  // A type a CRD defines: its scope, status subresource and short names
  // replace a built-in row's (by group, version and plural), or it is added.
  // `printer_columns` are the CRD's additionalPrinterColumns (Table output).
  void AddCrd(const engine::ResourceType& type, const engine::Json& printer_columns);
  const ServedResource* Find(std::string_view group, std::string_view version, std::string_view plural) const;
  // By group and kind (any version): how a stored object finds its type.
  const ServedResource* FindKind(std::string_view group, std::string_view kind) const;
  // Groups in first-seen order ("" is the core group).
  std::vector<std::string> Groups() const;
  // Versions of a group in first-seen order.
  std::vector<std::string> Versions(std::string_view group) const;

 private:
  // Groups in first-seen order, or with `group` that group's versions.
  std::vector<std::string> Distinct(const std::string_view* group) const;
  std::vector<ServedResource> resources_;
};

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_SERVER_RESOURCES_H_
