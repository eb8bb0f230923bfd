// §10.1 namespace sync, §10.4 subscription conditions, §9.7 steps.
#include <algorithm>
#include <cstdint>

#include "base/strings.h"
#include "domains/olm/conditions.h"
#include "domains/olm/reducer.h"
#include "engine/time_format.h"

namespace recon::olm {
namespace {

std::string S(const Json& j, std::string_view k) { return engine::GetString(j, {k}); }

int64_t Int(const Json& j) {
  if (j.is_number_integer()) return j.get<int64_t>();
  if (j.is_number_unsigned()) return static_cast<int64_t>(j.get<uint64_t>());
  return 0;
}

// Deterministic stand-in for generateName's random suffix (k8s alphabet).
std::string PlanName(std::string_view ns, int64_t generation, const std::vector<std::string>& csvs) {
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&](std::string_view s) {
    for (char ch : s) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;
  };
  mix(ns);
  mix(std::to_string(generation));
  for (const auto& c : csvs) mix(c);
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string out = "install-";
  for (int i = 0; i < 5; ++i) {
    out += kAlphabet[h % 27];
    h /= 27;
  }
  return out;
}

// Status fields in upstream's (Go struct) order, empty ones left out.
Json Canonical(const Json& s) {
  Json out = Json::object();
  for (const char* k : {"currentCSV", "installedCSV", "state", "installPlanGeneration", "installPlanRef",
                        "catalogHealth", "conditions", "lastUpdated"}) {
    if (!s.contains(k)) continue;
    const Json& v = s[k];
    if (v.is_null() || (v.is_string() && v.get<std::string>().empty()) || (v.is_array() && v.empty()))
      continue;
    out[k] = v;
  }
  return out;
}

bool SameIgnoringUpdated(Json a, Json b) {
  a.erase("lastUpdated");
  b.erase("lastUpdated");
  return a == b;
}

struct CatalogInScope {
  std::string name, ns, uid;
  int priority = 0;
  std::shared_ptr<const CatalogIndex> index;
  std::string error;
};

struct Sub {
  const engine::Object* obj = nullptr;
  std::string name, package, channel, source, source_ns, starting_csv, approval;
  Json status, before;
  std::string Subject(std::string_view ns) const { return StrCat("Subscription ", ns, "/", name); }
};

}  // namespace

void OlmReducer::SyncNamespace(Ctx& c, const std::string& ns) {
  const World& w = c.world;
  const int64_t now = c.ev.time_ns;
  std::vector<const engine::Object*> sub_objs = w.ListIn(kGroup, "Subscription", ns);
  if (sub_objs.empty()) return;
  std::vector<const engine::Object*> groups = w.ListIn(kGroup, "OperatorGroup", ns);
  if (groups.empty()) {
    // Upstream stops before resolving and sets no condition.
    for (const auto* o : sub_objs) {
      Note(StrCat("Subscription ", ns, "/", o->name()), "wait",
           StrCat("no OperatorGroup in namespace ", ns, ": nothing is resolved until one exists"));
    }
    return;
  }
  bool exclude_global =
      groups.size() == 1 &&
      engine::GetString(groups[0]->json(),
                        {"metadata", "annotations",
                         "olm.operatorframework.io/exclude-global-namespace-resolution"}) == "true";

  // Catalogs in scope, sorted by namespace and name.
  std::vector<CatalogInScope> cats;
  std::vector<std::string> scope_ns{ns};
  if (!exclude_global && global_ns_ != ns) scope_ns.push_back(global_ns_);
  std::sort(scope_ns.begin(), scope_ns.end());
  for (const std::string& sns : scope_ns) {
    for (const engine::Object* o : w.ListIn(kGroup, "CatalogSource", sns)) {
      CatalogInScope cs;
      cs.name = std::string(o->name());
      cs.ns = sns;
      cs.uid = engine::GetString(o->json(), {"metadata", "uid"});
      cs.priority = static_cast<int>(Int(engine::Path(o->json(), {"spec", "priority"})));
      const LoadedCatalog& lc = Catalog(w, sns, cs.name);
      cs.index = lc.index;
      cs.error = lc.error;
      cats.push_back(std::move(cs));
    }
  }
  auto find_cat = [&](std::string_view name, std::string_view cns) -> const CatalogInScope* {
    for (const auto& cs : cats)
      if (cs.name == name && cs.ns == cns) return &cs;
    return nullptr;
  };

  std::vector<Sub> subs;
  for (const engine::Object* o : sub_objs) {
    if (!o->json().is_object()) continue;
    Sub s;
    s.obj = o;
    s.name = std::string(o->name());
    const Json& spec = engine::Path(o->json(), {"spec"});
    s.package = S(spec, "name");
    s.channel = S(spec, "channel");
    s.source = S(spec, "source");
    s.source_ns = S(spec, "sourceNamespace");
    if (s.source_ns.empty()) s.source_ns = ns;
    s.starting_csv = S(spec, "startingCSV");
    s.approval = S(spec, "installPlanApproval");
    s.before = Canonical(EffectiveStatus(*o));
    s.status = s.before;
    subs.push_back(std::move(s));
  }
  auto csv_exists = [&](std::string_view name) {
    return !name.empty() && w.Get(kGroup, "ClusterServiceVersion", ns, name) != nullptr;
  };

  for (Sub& s : subs) {
    Json& st = s.status;
    // InstallPlan adoption: a subscription created by an InstallPlan step.
    std::string generated_by =
        engine::GetString(s.obj->json(), {"metadata", "annotations", "olm.generated-by"});
    if (S(engine::Path(st, {"installPlanRef"}), "name").empty() && S(st, "currentCSV").empty() &&
        !generated_by.empty() && EffectiveInstallPlan(w, ns, generated_by)) {
      st["installPlanRef"] = Json{
          {"apiVersion", kApiVersion}, {"kind", "InstallPlan"}, {"name", generated_by}, {"namespace", ns}};
      st["state"] = "UpgradePending";
      if (!s.starting_csv.empty()) st["currentCSV"] = s.starting_csv;
    }
    // The referenced InstallPlan's phase (§10.4).
    std::string ip_name = S(engine::Path(st, {"installPlanRef"}), "name");
    if (!ip_name.empty()) {
      std::optional<Json> ip = EffectiveInstallPlan(w, ns, ip_name);
      if (!ip) {
        RemoveCondition(st, "InstallPlanPending");
        RemoveCondition(st, "InstallPlanFailed");
        if (S(st, "state") == "UpgradePending") {
          // Addendum: the reference is dropped and the subscription resolved again.
          st.erase("installPlanRef");
          Note(s.Subject(ns), "note", StrCat("InstallPlan ", ip_name, " is gone: resolving again"));
        } else {
          SetCondition(st, "InstallPlanMissing", "True", "ReferencedInstallPlanNotFound", "", now);
        }
      } else {
        RemoveCondition(st, "InstallPlanMissing");
        std::string phase = S(engine::Path(*ip, {"status"}), "phase");
        std::string msg;
        std::string failed_reason;
        const Json& ipc = engine::Path(*ip, {"status", "conditions"});
        if (ipc.is_array()) {
          for (const Json& cond : ipc) {
            if (S(cond, "type") != "Installed") continue;
            msg = S(cond, "message");
            if (S(cond, "status") == "False") failed_reason = S(cond, "reason");
          }
        }
        if (phase == "Complete") {
          RemoveCondition(st, "InstallPlanPending");
          RemoveCondition(st, "InstallPlanFailed");
        } else if (phase == "Failed") {
          RemoveCondition(st, "InstallPlanPending");
          SetCondition(st, "InstallPlanFailed", "True",
                       failed_reason.empty() ? "InstallPlanFailed" : failed_reason, msg, now);
        } else {
          RemoveCondition(st, "InstallPlanFailed");
          SetCondition(st, "InstallPlanPending", "True",
                       phase.empty() ? "InstallPlanNotYetReconciled" : phase, msg, now);
          const Json* was = FindCondition(s.before, "InstallPlanPending");
          if (phase == "RequiresApproval" && (was == nullptr || S(*was, "reason") != "RequiresApproval")) {
            Note(s.Subject(ns), "wait",
                 StrCat("waits for approval of InstallPlan ", ns, "/", ip_name, " (",
                        StrCat(S(engine::Path(*ip, {"spec"}), "approval"),
                               " approval; set spec.approved to true)")));
          }
        }
      }
    }
    // CSV state.
    std::string current = S(st, "currentCSV");
    if (!current.empty()) {
      if (csv_exists(current)) {
        if (S(st, "installedCSV") != current || S(st, "state") != "AtLatestKnown") {
          Note(s.Subject(ns), "state", StrCat(current, " is installed"));
        }
        st["state"] = "AtLatestKnown";
        st["installedCSV"] = current;
      } else {
        st["state"] = "UpgradePending";
      }
    }
    // Catalog health (§10.4), written only when something changed.
    Json health = Json::array();
    bool any_unhealthy = false;
    std::string first_unhealthy;
    for (const auto& cs : cats) {
      bool ok = cs.index != nullptr;
      if (!ok && first_unhealthy.empty()) first_unhealthy = StrCat(cs.ns, "/", cs.name);
      any_unhealthy |= !ok;
      Json ref = Json{
          {"apiVersion", kApiVersion}, {"kind", "CatalogSource"}, {"name", cs.name}, {"namespace", cs.ns}};
      if (!cs.uid.empty()) ref["uid"] = cs.uid;
      health.push_back(Json{{"catalogSourceRef", ref}, {"healthy", ok}});
    }
    const Json prev = st.contains("catalogHealth") ? st["catalogHealth"] : Json::array();
    if (prev != health || !FindCondition(st, "CatalogSourcesUnhealthy")) {
      const CatalogInScope* target = find_cat(s.source, s.source_ns);
      std::string cstatus = "False", reason = "AllCatalogSourcesHealthy",
                  msg = "all available catalogsources are healthy";
      if (target == nullptr) {
        cstatus = "True";
        reason = "UnhealthyCatalogSourceFound";
        msg = StrCat("targeted catalogsource ", s.source_ns, "/", s.source, " missing");
      } else if (any_unhealthy) {
        cstatus = "True";
        reason = "UnhealthyCatalogSourceFound";
        msg = target->index == nullptr
                  ? StrCat("targeted catalogsource ", s.source_ns, "/", s.source, " unhealthy")
                  : StrCat("catalogsource ", first_unhealthy, " unhealthy");
      }
      if (health.size() > prev.size()) {
        reason = "CatalogSourcesAdded";
      } else if (health.size() < prev.size()) {
        reason = "CatalogSourcesDeleted";
      } else if (health.empty()) {
        reason = "NoCatalogSourcesFound";
        msg = "dependency resolution requires at least one catalogsource";
      } else if (prev != health) {
        reason = "CatalogSourcesUpdated";
      }
      SetCondition(st, "CatalogSourcesUnhealthy", cstatus, reason, msg, now);
      st["catalogHealth"] = health;
    }
    // Deprecations of the installed entry (§6, §10.4).
    std::vector<std::pair<std::string, std::string>> dep;  // type → message
    const CatalogInScope* target = find_cat(s.source, s.source_ns);
    std::string installed = S(st, "installedCSV");
    if (target && target->index && !installed.empty()) {
      if (const CatalogPackage* p = target->index->FindPackage(s.package)) {
        for (const CatalogChannel& ch : p->channels) {
          if (!s.channel.empty() && ch.name != s.channel) continue;
          const Entry* found = nullptr;
          for (int e : ch.all)
            if (target->index->entries()[e].name == installed) found = &target->index->entries()[e];
          if (found == nullptr) continue;
          if (p->deprecated)
            dep.push_back({"PackageDeprecated", StrCat("olm.package/", p->name, ": ", p->deprecation)});
          if (ch.deprecated && !s.channel.empty())
            dep.push_back({"ChannelDeprecated", StrCat("olm.channel/", ch.name, ": ", ch.deprecation)});
          if (found->deprecated)
            dep.push_back({"BundleDeprecated", StrCat("olm.bundle/", found->name, ": ", found->deprecation)});
          break;
        }
      }
    }
    std::string rollup;
    for (const char* t : {"PackageDeprecated", "ChannelDeprecated", "BundleDeprecated"}) {
      auto it = std::find_if(dep.begin(), dep.end(), [&](auto& d) { return d.first == t; });
      if (it == dep.end()) {
        RemoveCondition(st, t);
      } else {
        SetCondition(st, t, "True", "Deprecated", it->second, now);
        StrAppend(&rollup, rollup.empty() ? "" : "; ", it->second);
      }
    }
    if (rollup.empty()) {
      RemoveCondition(st, "Deprecated");
    } else {
      SetCondition(st, "Deprecated", "True", "Deprecated", rollup, now);
    }
  }

  // Resolution.
  auto fail_all = [&](std::string_view reason, const std::string& msg) {
    for (Sub& s : subs) {
      const Json* old = FindCondition(s.status, "ResolutionFailed");
      if (old == nullptr || S(*old, "message") != msg)
        Note(s.Subject(ns), "wait", StrCat("resolution failed: ", msg));
      SetCondition(s.status, "ResolutionFailed", "True", reason, msg, now);
    }
  };
  bool all_waiting = std::all_of(subs.begin(), subs.end(), [](const Sub& s) {
    return !S(engine::Path(s.status, {"installPlanRef"}), "name").empty() &&
           S(s.status, "state") == "UpgradePending";
  });
  const CatalogInScope* broken = nullptr;
  for (const auto& cs : cats)
    if (!cs.index && !broken) broken = &cs;
  if (groups.size() != 1) {
    fail_all("ErrorPreventedResolution",
             StrCat("expected 1 OperatorGroup in the namespace, found ", groups.size()));
  } else if (all_waiting) {
    // All subscriptions wait on their InstallPlans: nothing to resolve.
  } else if (broken) {
    fail_all("ErrorPreventedResolution",
             StrCat("error using catalogsource ", broken->ns, "/", broken->name, ": ", broken->error));
  } else {
    ResolveInput in;
    in.ns = ns;
    for (const auto& cs : cats) in.catalogs.push_back({cs.name, cs.ns, cs.priority, cs.index});
    std::map<std::string, std::pair<std::string, std::string>> installed_by;
    for (const Sub& s : subs) {
      std::string installed = S(s.status, "installedCSV");
      in.subscriptions.push_back(
          {s.name, s.package, s.channel, s.source, s.source_ns, s.starting_csv, installed});
      if (!installed.empty()) installed_by[installed] = {s.name, s.package};
    }
    in.existing = ExistingCsvs(w, ns, installed_by);
    ++resolutions_;
    auto res = Resolve(in);
    if (!res.ok()) {
      fail_all(res.status().code() == absl::StatusCode::kFailedPrecondition &&
                       Sv(res.status().message()).substr(0, 13) == "constraints n"
                   ? "ConstraintsNotSatisfiable"
                   : "ErrorPreventedResolution",
               std::string(Sv(res.status().message())));
    } else {
      std::vector<const ResolvedOperator*> plan;
      std::vector<std::pair<Sub*, const ResolvedOperator*>> changed;
      std::vector<Json> new_subs;
      for (const ResolvedOperator& op : res->operators) {
        std::vector<Sub*> matching;
        for (Sub& s : subs) {
          if (s.package == op.package && (s.channel.empty() || s.channel == op.channel) &&
              s.source == op.catalog && s.source_ns == op.catalog_ns)
            matching.push_back(&s);
        }
        bool done = !matching.empty() && std::all_of(matching.begin(), matching.end(), [&](Sub* s) {
          return S(s->status, "currentCSV") == op.csv && csv_exists(op.csv);
        });
        if (done) continue;
        // Deviation: an operator whose subscriptions already point at it is
        // left to their own InstallPlan (upstream repeats it in this plan,
        // where a late execution can undo a newer install).
        bool differs = matching.empty() || std::any_of(matching.begin(), matching.end(), [&](Sub* s) {
                         return S(s->status, "currentCSV") != op.csv;
                       });
        if (!differs) continue;
        plan.push_back(&op);
        if (matching.empty()) {
          // A dependency with no subscription: the plan creates one (§9.7).
          Json sub =
              Json{{"apiVersion", kApiVersion},
                   {"kind", "Subscription"},
                   {"metadata",
                    Json{{"name", StrCat(op.package, "-", op.channel, "-", op.catalog, "-", op.catalog_ns)},
                         {"namespace", ns}}},
                   {"spec", Json{{"channel", op.channel},
                                 {"installPlanApproval", "Automatic"},
                                 {"name", op.package},
                                 {"source", op.catalog},
                                 {"sourceNamespace", op.catalog_ns},
                                 {"startingCSV", op.csv}}}};
          new_subs.push_back(std::move(sub));
        }
        for (Sub* s : matching) {
          if (S(s->status, "currentCSV") != op.csv) changed.push_back({s, &op});
        }
      }
      if (!changed.empty()) {
        int64_t gen = 0;
        for (const Sub& s : subs) gen = std::max(gen, Int(engine::Path(s.status, {"installPlanGeneration"})));
        for (const engine::Object* o : w.ListIn(kGroup, "InstallPlan", ns))
          gen = std::max(gen, Int(engine::Path(o->json(), {"spec", "generation"})));
        const std::string prefix = StrCat("InstallPlan/", ns, "/");
        for (auto it = st_.created.lower_bound(prefix);
             it != st_.created.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
          gen = std::max(gen, Int(engine::Path(it->second.body, {"spec", "generation"})));
        }
        ++gen;
        bool manual =
            std::any_of(subs.begin(), subs.end(), [](const Sub& s) { return s.approval == "Manual"; });
        std::vector<std::string> csvs;
        for (const auto* op : plan) csvs.push_back(op->csv);
        std::string name = PlanName(ns, gen, csvs);
        Json steps = Json::array();
        std::set<std::string> sources;
        for (const auto* op : plan) {
          sources.insert(StrCat(op->catalog_ns, "/", op->catalog));
          steps.push_back(Json{{"resolving", op->csv},
                               {"resource", Json{{"group", kGroup},
                                                 {"version", "v1alpha1"},
                                                 {"kind", "ClusterServiceVersion"},
                                                 {"name", op->csv},
                                                 {"sourceName", op->catalog},
                                                 {"sourceNamespace", op->catalog_ns}}},
                               {"status", "Unknown"}});
        }
        for (const Json& ns_sub : new_subs) {
          std::string csv = engine::GetString(ns_sub, {"spec", "startingCSV"});
          steps.push_back(Json{{"resolving", csv},
                               {"resource", Json{{"group", kGroup},
                                                 {"version", "v1alpha1"},
                                                 {"kind", "Subscription"},
                                                 {"name", engine::GetString(ns_sub, {"metadata", "name"})},
                                                 {"manifest", engine::Dump(ns_sub)}}},
                               {"status", "Unknown"}});
        }
        Json owners = Json::array();
        for (const auto& [s, op] : changed) {
          Json ref = Json{{"apiVersion", kApiVersion}, {"kind", "Subscription"}, {"name", s->name}};
          std::string uid = engine::GetString(s->obj->json(), {"metadata", "uid"});
          if (!uid.empty()) ref["uid"] = uid;
          ref["blockOwnerDeletion"] = false;
          ref["controller"] = false;
          owners.push_back(std::move(ref));
        }
        Json catalog_sources = Json::array();
        for (const auto& cs : sources) catalog_sources.push_back(cs.substr(cs.find('/') + 1));
        Json status = Json{{"phase", manual ? "RequiresApproval" : "Installing"},
                           {"catalogSources", catalog_sources},
                           {"plan", steps}};
        Json ip = Json{{"apiVersion", kApiVersion},
                       {"kind", "InstallPlan"},
                       {"metadata", Json{{"name", name}, {"namespace", ns}, {"ownerReferences", owners}}},
                       {"spec", Json{{"clusterServiceVersionNames", csvs},
                                     {"approval", manual ? "Manual" : "Automatic"},
                                     {"approved", !manual},
                                     {"generation", gen}}},
                       {"status", status}};
        std::string id = c.emit.Create(ip);
        st_.created[StrCat("InstallPlan/", ns, "/", name)] = PendingWrite{ip, c.ev.seq, id};
        for (auto& [s, op] : changed) {
          std::string from = S(s->status, "installedCSV");
          s->status["currentCSV"] = op->csv;
          s->status["installPlanGeneration"] = gen;
          s->status["installPlanRef"] =
              Json{{"apiVersion", kApiVersion}, {"kind", "InstallPlan"}, {"name", name}, {"namespace", ns}};
          s->status["state"] = "UpgradePending";
          RemoveCondition(s->status, "InstallPlanMissing");
          RemoveCondition(s->status, "InstallPlanFailed");
          SetCondition(s->status, "InstallPlanPending", "True", manual ? "RequiresApproval" : "Installing",
                       "", now);
          auto& path = st_.paths[StrCat(ns, "/", s->name)];
          if (path.empty() && !from.empty()) path.push_back(from);
          path.push_back(op->csv);
          std::string path_text;
          for (const auto& p : path) StrAppend(&path_text, path_text.empty() ? "" : " -> ", p);
          Note(s->Subject(ns), "state",
               StrCat(from.empty() ? "install " : StrCat("upgrade ", from, " -> "), op->csv, " from catalog ",
                      op->catalog_ns, "/", op->catalog, " channel ", op->channel, " (", op->why,
                      "); InstallPlan ", name, manual ? " needs approval" : " approved automatically",
                      "; path so far: ", path_text));
          if (manual) {
            Note(s->Subject(ns), "wait",
                 StrCat("waits for approval of InstallPlan ", ns, "/", name,
                        " (Manual approval; set spec.approved to true)"));
          }
        }
        for (const auto* op : plan) {
          if (op->subscription.empty()) {
            Note(StrCat("InstallPlan ", ns, "/", name), "note",
                 StrCat("also installs ", op->csv, " (", op->why, ")"));
          }
        }
      } else {
        for (Sub& s : subs) {
          std::string cur = S(s.status, "currentCSV");
          if (cur.empty() || S(s.status, "state") != "AtLatestKnown" ||
              S(s.before, "state") == "AtLatestKnown")
            continue;
          Note(s.Subject(ns), "state",
               StrCat("at ", cur, ": no entry of channel ", s.channel.empty() ? "(any)" : s.channel,
                      " in catalog ", s.source_ns, "/", s.source,
                      " replaces, skips or has a skipRange covering it, so there is no upgrade"));
        }
      }
      for (Sub& s : subs) RemoveCondition(s.status, "ResolutionFailed");
    }
  }

  for (Sub& s : subs) {
    Json next = Canonical(s.status);
    if (SameIgnoringUpdated(next, s.before)) continue;
    next["lastUpdated"] = engine::FormatRfc3339Seconds(now);
    WriteStatus(c, *s.obj, std::move(next));
  }
}

}  // namespace recon::olm
