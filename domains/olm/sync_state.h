// What one namespace sync (§10.1) reads once and its steps share: the
// catalogs in scope, each valid subscription with the status being
// computed for it, and the catalog health of the namespace. Internal to
// sync.cc, sync_status.cc and sync_resolve.cc.
#ifndef RECON_DOMAINS_OLM_SYNC_STATE_H_
#define RECON_DOMAINS_OLM_SYNC_STATE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/strings.h"
#include "domains/olm/ns_index.h"
#include "domains/olm/resolve/catalog_index.h"
#include "engine/json.h"

namespace recon::olm {

// A catalog the namespace's subscriptions may resolve from (its own
// namespace's and, unless excluded, the global one's).
struct CatalogInScope {
  std::string name, ns, uid;
  int priority = 0;
  std::string digest;  // the content's digest: what caches key on, never the index's address
  std::shared_ptr<const CatalogIndex> index;  // null: unhealthy (error says why)
  std::string error;
};

// A valid subscription during the sync: its spec, and the status the sync
// computes for it from the effective status it started with.
struct SyncedSub {
  const SubView* view = nullptr;
  std::string_view name, package, channel, source, source_ns, starting_csv, approval;
  engine::Json status;
  const engine::Json* before = nullptr;  // the effective status at the start of the sync (Canonical)
  std::string Subject(std::string_view ns) const { return StrCat("Subscription ", ns, "/", name); }
};

struct NamespaceSync {
  std::string ns;
  const NsIndex* x = nullptr;
  int64_t now = 0;                   // the event's time
  std::vector<CatalogInScope> cats;  // sorted by namespace and name
  std::vector<SyncedSub> subs;       // by name
  // Catalog health (§10.4), the same for every subscription of the namespace.
  engine::Json health;
  bool any_unhealthy = false;

  const CatalogInScope* FindCatalog(std::string_view name, std::string_view cns) const {
    for (const auto& cs : cats)
      if (cs.name == name && cs.ns == cns) return &cs;
    return nullptr;
  }
  bool CsvExists(std::string_view name) const { return !name.empty() && x->csvs.contains(name); }
};

// Helpers of the sync's files.
inline std::string S(const engine::Json& j, std::string_view k) { return engine::GetString(j, {k}); }
inline int64_t Int(const engine::Json& j) {
  if (j.is_number_integer()) return j.get<int64_t>();
  if (j.is_number_unsigned()) return static_cast<int64_t>(j.get<uint64_t>());
  return 0;
}
inline void AppendKey(std::string* key, std::string_view v) {
  key->append(v);
  key->push_back('\x1f');
}
// Deterministic stand-in for generateName's random suffix (k8s alphabet).
std::string PlanName(std::string_view ns, int64_t generation, const std::vector<std::string>& csvs);
// A step of an InstallPlan that installs a CSV from a catalog.
engine::Json CsvStep(std::string_view csv, std::string_view source, std::string_view source_ns);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_SYNC_STATE_H_
