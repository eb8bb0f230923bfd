// The olm domain: OLM's catalog operator as a pure reducer.
//   reducer.cc   dispatch, options, snapshot, explain, catalog cache
//   sync.cc      namespace sync (§10.1): subscription state, resolution,
//                InstallPlan creation, conditions (§10.4)
//   existing.cc  installed CSVs → the @existing catalog (§9.1)
// Catalogs are Content events named olm/catalog/<ns>/<name>.
#ifndef RECON_DOMAINS_OLM_REDUCER_H_
#define RECON_DOMAINS_OLM_REDUCER_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "domains/olm/catalog_index.h"
#include "domains/olm/resolver.h"
#include "engine/reducer.h"

namespace recon::olm {

using engine::Emit;
using engine::Event;
using engine::Json;
using engine::World;

inline constexpr std::string_view kDomain = "olm";
inline constexpr std::string_view kGroup = "operators.coreos.com";
inline constexpr std::string_view kApiVersion = "operators.coreos.com/v1alpha1";

// A write whose effect the world may not show yet (writes are not fed back
// in a replay; a live cluster shows them a moment later).
struct PendingWrite {
  Json body;  // the status written, or the object created
  uint64_t seq = 0;
  std::string action;
  // Hashes of earlier statuses written to the same object: a watch event
  // still carrying one of them is a stale echo, not a newer state.
  std::vector<uint64_t> history;
};

struct OlmState {
  std::map<std::string, PendingWrite> statuses;           // "<Kind>/<ns>/<name>" → last status written
  std::map<std::string, PendingWrite> created;            // "InstallPlan/<ns>/<name>" until observed deleted
  std::map<std::string, std::vector<std::string>> paths;  // "<ns>/<sub>" → CSVs resolved, in order
};

struct LoadedCatalog {
  std::string digest;
  std::shared_ptr<const CatalogIndex> index;
  std::string error;
};

class OlmReducer : public engine::Reducer {
 public:
  std::string_view Domain() const override { return kDomain; }
  std::vector<engine::OptionSpec> Options() const override;
  // resources.cc: what the reducer watches and writes.
  std::vector<engine::ResourceUse> Resources() const override;
  absl::Status SetOption(std::string_view key, std::string_view value) override;
  void Reduce(const Event& event, const World& world, Emit& emit) override;
  void Explain(const Event& event, const World& world, const std::vector<store::ActionRecord>& actions,
               engine::Timeline& timeline) const override;
  absl::Status Snapshot(engine::SnapshotWriter& writer) const override;
  absl::Status Restore(engine::SnapshotReader& reader) override;

  const OlmState& state() const { return st_; }
  uint64_t resolutions() const { return resolutions_; }

 private:
  struct Ctx {
    const Event& ev;
    const World& world;
    Emit& emit;
  };
  struct Note {
    std::string subject, kind, text;
  };

  // reducer.cc
  const LoadedCatalog& Catalog(const World& world, std::string_view ns, std::string_view name);
  Json EffectiveStatus(const engine::Object& o) const;
  // The InstallPlan as observed, else as created (nullopt if neither):
  // its spec.approval and effective status only.
  std::optional<Json> EffectiveInstallPlan(const World& world, std::string_view ns,
                                           std::string_view name) const;
  void WriteStatus(Ctx& c, const engine::Object& o, Json status);
  void OnInstallPlan(Ctx& c);
  void Note(std::string subject, std::string kind, std::string text) const;

  // sync.cc
  void SyncNamespace(Ctx& c, const std::string& ns);

  OlmState st_;
  std::string global_ns_ = "openshift-marketplace";
  std::map<std::string, LoadedCatalog, std::less<>> catalogs_;  // by content name (derived)
  std::map<std::string, std::shared_ptr<const CatalogIndex>> by_digest_;
  uint64_t resolutions_ = 0;
  mutable std::vector<struct Note> notes_;  // this event's explain notes
};

// Installed CSVs of a namespace as @existing entries (existing.cc).
// `installed_by` maps a CSV name to the subscription whose installedCSV it is.
std::vector<ExistingCsv> ExistingCsvs(
    const World& world, std::string_view ns,
    const std::map<std::string, std::pair<std::string, std::string>>& installed_by);

std::unique_ptr<engine::Reducer> MakeReducer();

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_REDUCER_H_
