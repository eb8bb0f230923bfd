// A real package of the real community-derived catalog run through the
// strict simulated cluster with the olm domain, wired as the agent wires
// them (every event reduced, every action applied): the writes the domain
// made and the cluster as it ends. Used by crd_writes_test.cc (every write
// admitted by the real CRDs) and csv_lifecycle_test.cc (recon as OLM's olm
// operator too).
#ifndef RECON_TESTS_DOMAINS_OLM_SIM_RUN_H_
#define RECON_TESTS_DOMAINS_OLM_SIM_RUN_H_

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/sim/olm_stand_in.h"
#include "adapters/sim/simulator.h"
#include "base/strings.h"
#include "cli/domains.h"
#include "crd/registry.h"
#include "domains/olm/reducer.h"
#include "domains/olm/resolve/catalog_index.h"
#include "engine/engine.h"
#include "engine/jsonl_writer.h"
#include "soak/olm.h"

namespace recon::olm::olm_sim {

// RECON_OLM_CATALOG overrides (another copy of the catalog).
inline const std::string kDerived = std::getenv("RECON_OLM_CATALOG") != nullptr
                                        ? std::getenv("RECON_OLM_CATALOG")
                                        : std::string(RECON_SOURCE_DIR) + "/datasets/olm/community-derived";
inline constexpr std::string_view kNs = "crd-writes";
inline constexpr std::string_view kGlobalNs = "openshift-marketplace";

struct Write {
  records::ActionRecord action;
  Json body;
  Json stored;     // the object the server held when the write was applied (null if none)
  int64_t at = 0;  // the cluster's time then
};

struct Run {
  std::vector<Write> writes;
  Json subscription;  // as the cluster ends
  uint64_t events = 0;
  std::vector<Json> csvs, deployments;  // of the namespace, as the cluster ends
  std::vector<Json> copies;             // CSVs in other namespaces, as the cluster ends
  std::vector<Json> conditions;         // OperatorConditions of the namespace, as the cluster ends
  std::set<std::string> rbac;           // "Role/<name>", "RoleBinding/<name>" of the namespace, as it ends
  Json olm_config;                      // OLMConfig cluster, as the cluster ends
  std::map<std::string, Json> cluster_roles;  // by name, as the cluster ends
  std::map<std::string, Json> cluster_role_bindings;  // by name, as the cluster ends
  std::map<std::string, Json> other_rbac;  // "<ns>/<Kind>/<name>" of other namespaces' Roles and RoleBindings
  std::map<std::string, Json> namespaces;     // by name, as the cluster ends
  std::map<std::string, Json> crds;           // by name, as the cluster ends
  std::vector<Json> plans;                    // InstallPlans of the namespace, as the cluster ends
};

// The catalog files cut to the lines of one package (JSON lines).
inline void KeepOnlyPackage(records::ContentFiles& files, const std::string& package) {
  for (auto& [file, text] : files) {
    std::string kept;
    for (size_t at = 0; at < text.size();) {
      size_t nl = text.find('\n', at);
      std::string_view line(text.data() + at, (nl == std::string::npos ? text.size() : nl) - at);
      at = nl == std::string::npos ? text.size() : nl + 1;
      auto doc = engine::ParseJson(line);
      if (!doc.ok()) continue;
      const bool mine = engine::GetString(*doc, {"package"}) == package ||
                        (engine::GetString(*doc, {"schema"}) == "olm.package" &&
                         engine::GetString(*doc, {"name"}) == package);
      if (mine) StrAppend(&kept, line, "\n");
    }
    text = std::move(kept);
  }
}

// The simulated cluster and the engine, wired as the agent wires them: every
// event reduced, every action applied, until nothing is left to happen.
// recon is both of OLM's operators (olm.executePlans, olm.csvLifecycle),
// and the cluster plays only what Kubernetes does (sim/olm_stand_in.h).
// `other_namespaces`: these exist too, and the group targets every
// namespace (its CSVs are copied there) instead of its own.
inline absl::StatusOr<Run> RunThroughSim(const soak::SoakOlmPackage& pkg,
                                         std::shared_ptr<const soak::SoakOlmCatalog> catalog,
                                         std::string_view subscription_writes = "split",
                                         const std::vector<std::string>& other_namespaces = {},
                                         const std::function<void(sim::Scenario&)>& customize = {}) {
  const std::string api = std::string(kApiVersion);
  sim::Scenario sc;
  sc.name = "olm-crd-writes";
  sc.start_ns = 1'800'000'000'000'000'000;
  sc.objects.push_back(Json{{"apiVersion", api},
                            {"kind", "CatalogSource"},
                            {"metadata", Json{{"name", "community"}, {"namespace", kGlobalNs}}},
                            {"spec", Json{{"sourceType", "grpc"}}}});
  sc.objects.push_back(Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", Json{{"name", kNs}}}});
  for (const std::string& ns : other_namespaces)
    sc.objects.push_back(Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", Json{{"name", ns}}}});
  sc.objects.push_back(Json{
      {"apiVersion", "operators.coreos.com/v1"},
      {"kind", "OperatorGroup"},
      {"metadata", Json{{"name", "og"}, {"namespace", kNs}}},
      {"spec", other_namespaces.empty() ? Json{{"targetNamespaces", Json::array({kNs})}} : Json::object()}});
  sc.objects.push_back(Json{{"apiVersion", api},
                            {"kind", "Subscription"},
                            {"metadata", Json{{"name", pkg.name}, {"namespace", kNs}}},
                            {"spec", Json{{"name", pkg.name},
                                          {"channel", pkg.channel},
                                          {"source", "community"},
                                          {"sourceNamespace", kGlobalNs},
                                          {"startingCSV", pkg.start}}}});
  if (customize) customize(sc);
  sim::Simulator sim(sc);
  // recon carries the plans out and moves the CSVs (both defaults); the
  // cluster runs the unpack Jobs and plays Kubernetes' part.
  sim.SetController(soak::SoakOlmController(catalog));
  std::vector<std::unique_ptr<engine::Reducer>> reducers;
  reducers.push_back(MakeReducer());
  if (auto s = reducers.back()->SetOption("subscriptionWrites", subscription_writes); !s.ok()) return s;
  for (const auto& [key, value] : sc.options)  // "olm.<option>" a test's customize sets
    if (key.starts_with("olm."))
      if (auto s = reducers.back()->SetOption(key.substr(4), value); !s.ok()) return s;
  engine::Engine eng(std::move(reducers));

  Run run;
  uint64_t seq = 0;
  std::vector<records::ActionRecord> actions;
  auto files = cli::LoadDirectory(kDerived);
  if (!files.ok()) return files.status();
  // The package's own catalog lines only, so the run's log
  // is small enough to keep as a scenario (RECON_RECORD_SCENARIO=FILE
  // writes it: tests/scenarios/olm/csv_lifecycle.jsonl).
  KeepOnlyPackage(*files, pkg.name);
  std::string recorded;
  records::EventRecord content;
  content.type = records::EventType::kContent;
  content.time_ns = sc.start_ns;
  content.content_name = recon::StrCat("olm/catalog/", kGlobalNs, "/community");
  content.content_digest = records::ContentDigest(*files);
  content.content_files = std::move(*files);
  auto reduce = [&](const records::EventRecord& r) -> absl::Status {
    recorded +=
        engine::EventToJsonl(seq + 1, r, r.type == records::EventType::kContent ? &r.content_files : nullptr);
    actions.clear();
    if (auto s = eng.Step(engine::Event::FromRecord(++seq, r), &actions); !s.ok()) return s;
    for (const auto& a : actions) {
      Write w{a, engine::ParseJson(a.body).value_or(Json()), Json(), sim.now()};
      if (const Json* o =
              sim.objects().Get(engine::ObjectKey{a.object.group, a.object.kind, a.object.ns, a.object.name}))
        w.stored = *o;
      if (a.verb == "create" || a.verb == "update" || a.verb == "updateStatus") run.writes.push_back(w);
      sim.Apply(a);
    }
    return absl::OkStatus();
  };
  if (auto s = reduce(content); !s.ok()) return s;
  for (const auto& r : sim.Start())
    if (auto s = reduce(r); !s.ok()) return s;
  while (sim.HasPendingWork() && seq < 20000) {
    for (const auto& r : sim.Step())
      if (auto s = reduce(r); !s.ok()) return s;
  }
  run.events = seq;
  if (const char* path = std::getenv("RECON_RECORD_SCENARIO"); path != nullptr) {
    std::ofstream(path) << recorded;
  }
  const Json* sub =
      sim.objects().Get(engine::ObjectKey{std::string(kGroup), "Subscription", std::string(kNs), pkg.name});
  if (sub != nullptr) run.subscription = *sub;
  for (const auto& [key, obj] : sim.objects().objects()) {
    if (key.ns != kNs && key.group == kGroup && key.kind == "ClusterServiceVersion")
      run.copies.push_back(obj);
    if (key.group == kGroup && key.kind == "OLMConfig") run.olm_config = obj;
    if (key.kind == "ClusterRole") run.cluster_roles[key.name] = obj;
    if (key.kind == "ClusterRoleBinding") run.cluster_role_bindings[key.name] = obj;
    if (key.ns != kNs && key.group == "rbac.authorization.k8s.io" &&
        (key.kind == "Role" || key.kind == "RoleBinding"))
      run.other_rbac[recon::StrCat(key.ns, "/", key.kind, "/", key.name)] = obj;
    if (key.group.empty() && key.kind == "Namespace") run.namespaces[key.name] = obj;
    if (key.kind == "CustomResourceDefinition") run.crds[key.name] = obj;
    if (key.ns != kNs) continue;
    if (key.group == kGroup && key.kind == "ClusterServiceVersion") run.csvs.push_back(obj);
    if (key.group == "apps" && key.kind == "Deployment") run.deployments.push_back(obj);
    if (key.group == kGroup && key.kind == "InstallPlan") run.plans.push_back(obj);
    if (key.group == kGroup && key.kind == "OperatorCondition") run.conditions.push_back(obj);
    if (key.group == "rbac.authorization.k8s.io") run.rbac.insert(recon::StrCat(key.kind, "/", key.name));
  }
  return run;
}

// The entry `back` steps below the head of the package's channel in the
// real catalog (0: the head).
inline std::string ChannelHead(const soak::SoakOlmPackage& pkg, size_t back = 0) {
  auto files = cli::LoadDirectory(kDerived);
  if (!files.ok()) return "";
  auto idx = CatalogIndex::Load(*files);
  if (!idx.ok()) return "";
  const CatalogPackage* p = (*idx)->FindPackage(pkg.name);
  const CatalogChannel* ch = p == nullptr ? nullptr : p->Find(pkg.channel);
  if (ch == nullptr || ch->order.size() <= back) return "";
  return (*idx)->entries()[static_cast<size_t>(ch->order[back])].name;
}

inline void ExpectEveryWriteAdmitted(const Run& run) {
  // The object the server would store after each write, admitted against
  // the real CRD: a create as sent (its .status dropped), an updateStatus as
  // the stored object with the written status.
  auto reg = crd::Registry::Builtin();
  ASSERT_TRUE(reg.ok()) << reg.status();
  for (const Write& w : run.writes) {
    std::string api = engine::GetString(w.body, {"apiVersion"});
    const crd::Kind* kind =
        reg->Find(api.substr(0, api.find('/')), api.substr(api.find('/') + 1), w.action.object.kind);
    if (kind == nullptr) {  // a built-in kind (a step's Role, an unpack Job): no CRD to admit it
      EXPECT_NE(w.action.object.group, kGroup) << api << " " << w.action.object.kind;
      continue;
    }
    Json object = w.body;
    if (w.action.verb == "updateStatus") {
      object = w.stored;
      object["status"] = w.body["status"];
    } else if (w.action.verb == "create") {
      object.erase("status");
    }
    std::vector<crd::FieldError> errors =
        reg->Admit(*kind, object, w.stored.is_object() ? &w.stored : nullptr);
    std::string text;
    for (const auto& e : errors) text += e.ToString() + "\n";
    EXPECT_TRUE(errors.empty()) << w.action.verb << " " << w.action.object.kind << ":\n" << text;
  }
}

}  // namespace recon::olm::olm_sim

#endif  // RECON_TESTS_DOMAINS_OLM_SIM_RUN_H_
