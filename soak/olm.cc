#include "soak/olm.h"

#include <algorithm>
#include <set>

#include "base/strings.h"
#include "domains/olm/resolve/catalog_index.h"
#include "soak/olm_bundles.h"

namespace recon::soak {
namespace {

using engine::Json;

constexpr char kGroup[] = "operators.coreos.com";
constexpr char kApiVersion[] = "operators.coreos.com/v1alpha1";

// The catalog's files as blobs, one per line (a JSON stream as opm writes
// it); nullopt for any other layout (YAML, blobs over several lines).
std::optional<std::vector<std::vector<Json>>> LineBlobs(const records::ContentFiles& files) {
  std::vector<std::vector<Json>> out;
  for (const auto& [path, text] : files) {
    std::vector<Json>& blobs = out.emplace_back();
    size_t at = 0;
    while (at < text.size()) {
      size_t end = text.find('\n', at);
      if (end == std::string::npos) end = text.size();
      std::string_view line = std::string_view(text).substr(at, end - at);
      at = end + 1;
      if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
      auto j = engine::ParseJson(line);
      if (!j.ok() || !j->is_object()) return std::nullopt;
      blobs.push_back(std::move(*j));
    }
  }
  return out;
}

// The files with the bundles named in `drop` (package → bundle) taken out of
// their package's channels, deprecations and bundle list.
records::ContentFiles Without(const records::ContentFiles& files, const std::vector<std::vector<Json>>& blobs,
                              const std::map<std::string, std::string>& drop) {
  records::ContentFiles out;
  for (size_t f = 0; f < files.size(); ++f) {
    std::string text;
    for (const Json& b : blobs[f]) {
      std::string schema = engine::GetString(b, {"schema"});
      std::string package = engine::GetString(b, {schema == "olm.package" ? "name" : "package"});
      auto d = drop.find(package);
      if (d == drop.end()) {
        text += engine::Dump(b) + "\n";
        continue;
      }
      const std::string& gone = d->second;
      if (schema == "olm.bundle" && engine::GetString(b, {"name"}) == gone) continue;
      Json copy = b;
      auto prune = [&](const char* list, auto is_gone) {
        if (auto it = copy.find(list); it != copy.end() && it->is_array()) {
          Json kept = Json::array();
          for (const Json& e : *it)
            if (!is_gone(e)) kept.push_back(e);
          *it = std::move(kept);
        }
      };
      if (schema == "olm.channel") {
        prune("entries", [&](const Json& e) { return engine::GetString(e, {"name"}) == gone; });
      } else if (schema == "olm.deprecations") {
        prune("entries", [&](const Json& e) {
          return engine::GetString(e, {"reference", "schema"}) == "olm.bundle" &&
                 engine::GetString(e, {"reference", "name"}) == gone;
        });
      }
      text += engine::Dump(copy) + "\n";
    }
    out.emplace_back(files[f].first, std::move(text));
  }
  return out;
}

// "package/channel" → the channel's head in `files`, for `packages`; a
// channel whose order cannot be told is left out.
std::map<std::string, std::string> ChannelHeads(const records::ContentFiles& files,
                                                const std::set<std::string>& packages) {
  std::map<std::string, std::string> heads;
  auto idx = olm::CatalogIndex::Load(files);
  if (!idx.ok()) return heads;
  for (const auto& p : (*idx)->packages()) {
    if (!packages.contains(p.name)) continue;
    for (const auto& c : p.channels) {
      if (!c.order_error.empty() || c.order.empty()) continue;
      heads[recon::StrCat(p.name, "/", c.name)] =
          (*idx)->entries()[static_cast<size_t>(c.order.front())].name;
    }
  }
  return heads;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const SoakOlmCatalog>> LoadSoakOlm(const std::string& dir,
                                                                  const LoadDirectoryFn& load_directory,
                                                                  int max_packages, uint64_t seed) {
  auto files = load_directory(dir);
  if (!files.ok()) return files.status();
  auto idx = olm::CatalogIndex::Load(*files);
  if (!idx.ok()) return absl::InvalidArgumentError(recon::StrCat(dir, ": ", Sv(idx.status().message())));
  const auto& entries = (*idx)->entries();
  auto out = std::make_shared<SoakOlmCatalog>();
  out->dir = dir;

  // Eligible: a default channel of three or more ordered entries, no
  // dependencies anywhere in the package (a dependency brings a generated
  // subscription the workload does not edit).
  std::map<std::string, std::vector<int>> of_package;
  for (size_t i = 0; i < entries.size(); ++i) of_package[entries[i].package].push_back(static_cast<int>(i));
  std::vector<const olm::CatalogPackage*> eligible;
  for (const auto& p : (*idx)->packages()) {
    const olm::CatalogChannel* ch = p.Find(p.default_channel);
    if (ch == nullptr || !ch->order_error.empty() || ch->order.size() < 3) continue;
    bool deps = false;
    for (int e : of_package[p.name])
      deps |= !entries[static_cast<size_t>(e)].dependencies.empty() ||
              !entries[static_cast<size_t>(e)].dependency_error.empty();
    if (!deps) eligible.push_back(&p);
  }
  if (eligible.empty()) return absl::InvalidArgumentError(recon::StrCat(dir, ": no package fits the soak"));
  const size_t n = eligible.size();
  const size_t want = std::min(n, static_cast<size_t>(std::max(1, max_packages)));
  const size_t stride = std::max<size_t>(1, n / want);
  std::set<size_t> chosen;
  for (size_t k = 0; chosen.size() < want; ++k) chosen.insert((seed + k * stride + k / n) % n);
  for (size_t c : chosen) {
    const olm::CatalogPackage& p = *eligible[c];
    const olm::CatalogChannel* ch = p.Find(p.default_channel);
    SoakOlmPackage sp;
    sp.name = p.name;
    sp.channel = p.default_channel;
    sp.start = entries[static_cast<size_t>(ch->order.back())].name;
    std::set<std::string> names;
    for (int e : ch->all) names.insert(entries[static_cast<size_t>(e)].name);
    for (const auto& other : p.channels) {
      if (other.name == p.default_channel || !other.order_error.empty() || other.order.empty()) continue;
      std::set<std::string> has;
      for (int e : other.all) has.insert(entries[static_cast<size_t>(e)].name);
      if (std::includes(has.begin(), has.end(), names.begin(), names.end())) {
        sp.other_channel = other.name;
        break;
      }
    }
    out->packages.push_back(std::move(sp));
  }
  std::set<std::string> picked;
  for (const auto& p : out->packages) picked.insert(p.name);
  out->bundles = OlmBundlesOf(**idx, &picked);

  // The older copy: every other chosen package without its default
  // channel's head, where that head heads every channel it is in.
  out->before = *files;
  auto blobs = LineBlobs(*files);
  if (!blobs) {
    out->heads_before = ChannelHeads(out->before, picked);
    return std::shared_ptr<const SoakOlmCatalog>(std::move(out));
  }
  std::map<std::string, std::string> drop;
  for (size_t k = 0; k < out->packages.size(); k += 2) {
    const olm::CatalogPackage* p = (*idx)->FindPackage(out->packages[k].name);
    const olm::CatalogChannel* ch = p->Find(p->default_channel);
    const std::string head = entries[static_cast<size_t>(ch->order.front())].name;
    bool heads_all = true;
    for (const auto& c : p->channels) {
      for (int e : c.all) {
        if (entries[static_cast<size_t>(e)].name != head) continue;
        heads_all &= !c.order.empty() && entries[static_cast<size_t>(c.order.front())].name == head;
      }
    }
    if (!heads_all) continue;
    // Kept only if the catalog still validates without it.
    auto trial = drop;
    trial[p->name] = head;
    if (!olm::CatalogIndex::Load(Without(*files, *blobs, trial)).ok()) continue;
    drop = std::move(trial);
  }
  if (!drop.empty()) out->before = Without(*files, *blobs, drop);
  for (const auto& [package, head] : drop) out->updated.push_back(package);
  out->heads_before = ChannelHeads(out->before, picked);
  return std::shared_ptr<const SoakOlmCatalog>(std::move(out));
}

sim::Controller SoakOlmController(std::shared_ptr<const SoakOlmCatalog> catalog) {
  return sim::OlmClusterStandIn(catalog->bundles);
}

bool OlmUpgradeInFlight(const std::vector<std::pair<std::string, std::string>>& objects,
                        const std::map<std::string, std::string>& heads) {
  const std::string subs = recon::StrCat(kGroup, "/Subscription/"),
                    plans = recon::StrCat(kGroup, "/InstallPlan/");
  std::set<std::string> waiting_approval;  // "ns/name" of plans nobody approved
  std::set<std::string> bare;              // "ns/name" of plans without a phase
  std::set<std::string> referenced;        // "ns/name" of plans a subscription refers to
  std::vector<Json> pending;               // UpgradePending subscriptions
  for (const auto& [key, body] : objects) {
    const bool sub = key.starts_with(subs);
    if (!sub && !key.starts_with(plans)) continue;
    auto j = engine::ParseJson(body);
    if (!j.ok()) continue;
    if (sub) {
      const Json& ref = engine::Path(*j, {"status", "installPlanRef"});
      if (ref.is_object())
        referenced.insert(
            recon::StrCat(engine::GetString(ref, {"namespace"}), "/", engine::GetString(ref, {"name"})));
      std::string state = engine::GetString(*j, {"status", "state"});
      if (state.empty()) return true;  // not resolved yet
      if (state == "UpgradePending") pending.push_back(std::move(*j));
      if (state != "AtLatestKnown") continue;
      auto head = heads.find(recon::StrCat(engine::GetString(*j, {"spec", "name"}), "/",
                                           engine::GetString(*j, {"spec", "channel"})));
      if (head != heads.end() && engine::GetString(*j, {"status", "installedCSV"}) != head->second)
        return true;
      continue;
    }
    std::string phase = engine::GetString(*j, {"status", "phase"});
    const Json& approved = engine::Path(*j, {"spec", "approved"});
    const bool is_approved = approved.is_boolean() && approved.get<bool>();
    // A plan without a phase is on its way only while a subscription refers
    // to it: the agent leaves one it superseded before its status landed
    // bare for good (never carried out).
    if (phase.empty()) bare.insert(key.substr(plans.size()));
    if (phase == "Installing" || (phase == "RequiresApproval" && is_approved)) return true;
    if (phase == "RequiresApproval") waiting_approval.insert(key.substr(plans.size()));
  }
  for (const std::string& p : bare)
    if (referenced.contains(p)) return true;
  // A plan waiting for approval nobody gives is not on its way; any other
  // UpgradePending subscription is (its plan not there yet, or done and
  // the agent still to write AtLatestKnown and resolve again).
  for (const Json& sub : pending) {
    const Json& ref = engine::Path(sub, {"status", "installPlanRef"});
    if (!waiting_approval.contains(
            recon::StrCat(engine::GetString(ref, {"namespace"}), "/", engine::GetString(ref, {"name"}))))
      return true;
  }
  return false;
}

namespace {

// A CRD's installed-alongside annotations that name a CSV gone by the end
// are history: a plan drops them only when it next updates the CRD, and
// which plan updated it last depends on timing.
void DropStaleAlongside(std::map<std::string, std::string>* state) {
  const std::string crds = "apiextensions.k8s.io/CustomResourceDefinition/";
  const std::string csvs = recon::StrCat(kGroup, "/ClusterServiceVersion/");
  for (auto it = state->lower_bound(crds); it != state->end() && it->first.starts_with(crds); ++it) {
    auto j = engine::ParseJson(it->second);
    if (!j.ok()) continue;
    Json& annotations = (*j)["metadata"]["annotations"];
    if (!annotations.is_object()) continue;
    bool dropped = false;
    for (auto a = annotations.begin(); a != annotations.end();) {
      const bool stale = a.key().starts_with("operatorframework.io/installed-alongside-") && a->is_string() &&
                         !state->contains(recon::StrCat(csvs, a->get<std::string>()));
      dropped |= stale;
      a = stale ? annotations.erase(a) : std::next(a);
    }
    if (dropped) it->second = engine::Dump(*j);
  }
}

}  // namespace

void NormalizeOlmState(std::map<std::string, std::string>* state) {
  const std::string plans_prefix = recon::StrCat(kGroup, "/InstallPlan/");
  const std::string subs_prefix = recon::StrCat(kGroup, "/Subscription/");
  std::map<std::string, Json> plans;  // "ns/name"
  for (auto it = state->lower_bound(plans_prefix);
       it != state->end() && it->first.compare(0, plans_prefix.size(), plans_prefix) == 0;) {
    auto j = engine::ParseJson(it->second);
    if (j.ok()) plans[it->first.substr(plans_prefix.size())] = std::move(*j);
    it = state->erase(it);
  }
  for (auto it = state->lower_bound(subs_prefix);
       it != state->end() && it->first.compare(0, subs_prefix.size(), subs_prefix) == 0; ++it) {
    auto j = engine::ParseJson(it->second);
    if (!j.ok()) continue;
    auto st = j->find("status");
    if (st == j->end() || !st->is_object()) continue;
    st->erase("lastUpdated");
    st->erase("installPlanGeneration");
    auto ref = st->find("installPlanRef");
    if (ref != st->end()) {
      std::string key =
          recon::StrCat(engine::GetString(*ref, {"namespace"}), "/", engine::GetString(*ref, {"name"}));
      st->erase(ref);
      Json summary = Json{{"exists", false}};
      if (auto p = plans.find(key); p != plans.end()) {
        const Json& plan = p->second;
        std::string current = engine::GetString(*st, {"currentCSV"});
        bool installs = false;
        const Json& names = engine::Path(plan, {"spec", "clusterServiceVersionNames"});
        for (const Json& n : names.is_array() ? names : Json::array())
          installs |= n.is_string() && n == current;
        summary = Json{{"exists", true},
                       {"phase", engine::GetString(plan, {"status", "phase"})},
                       {"approval", engine::GetString(plan, {"spec", "approval"})},
                       {"approved", engine::Path(plan, {"spec", "approved"})},
                       {"installsCurrentCSV", installs}};
      }
      // A subscription at its installed CSV whose plan ran, or was
      // garbage-collected after (§10.1 step 1: which plans are the oldest
      // five generations depends on timing), is done with its plan either
      // way; upstream then shows InstallPlanMissing, which says no more.
      const bool at_installed =
          engine::GetString(*st, {"state"}) == "AtLatestKnown" &&
          engine::GetString(*st, {"installedCSV"}) == engine::GetString(*st, {"currentCSV"});
      const bool done = summary["exists"]
                            ? summary["phase"] == "Complete" && summary["installsCurrentCSV"] == true
                            : at_installed;
      if (at_installed && done) {
        summary = Json{{"done", true}};
        auto conds = st->find("conditions");
        if (conds != st->end() && conds->is_array()) {
          Json kept = Json::array();
          for (const Json& c : *conds)
            if (engine::GetString(c, {"type"}) != "InstallPlanMissing") kept.push_back(c);
          *conds = std::move(kept);
        }
      }
      (*st)["installPlan"] = summary;
    }
    it->second = engine::Dump(*j);
  }
  DropStaleAlongside(state);
}

}  // namespace recon::soak
