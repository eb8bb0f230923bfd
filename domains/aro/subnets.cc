#include "domains/aro/subnets.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "base/strings.h"
#include "domains/aro/common.h"
#include "domains/aro/explain.h"
#include "domains/aro/flags.h"
#include "domains/aro/nsg_rules.h"
#include "domains/aro/subnet_discovery.h"

namespace recon::aro {
namespace {

// A round whose PUT results never came back (e.g. lost across a restart)
// is abandoned by the next trigger after this long.
constexpr int64_t kRoundDeadline = 10 * 60 * kSecond;
constexpr size_t kRemediationCap = 200;
constexpr std::string_view kRequiredServices[] = {"Microsoft.ContainerRegistry", "Microsoft.Storage"};

bool HasSucceededEndpoint(const Json& endpoints, std::string_view service) {
  if (!endpoints.is_array()) return false;
  for (const auto& ep : endpoints) {
    if (EqualFold(Str(ep, "service"), service) && Str(ep, "provisioningState") == "Succeeded") return true;
  }
  return false;
}

std::string ResultError(const engine::Event& event) {
  if (!event.error.empty()) return std::string(event.error);
  return event.status ? recon::StrCat("status ", *event.status) : std::string("failed");
}

}  // namespace

void SubnetsController::Trigger(std::string_view why, const engine::Event& event, const engine::World& world,
                                engine::Emit& emit, const Options& options) {
  if (!world.Synced() || holding_) {
    // A live adapter's lists are not complete (a start, a relist): the
    // world may still hold subnets as they were before, and a round now
    // would take them for current (a NSG detached while the agent was down,
    // listed after the MachineSet that triggered the round, stayed detached
    // until the next interval: four-domain soak, seed 19). Upstream's
    // workers start once the caches have synced; the round runs then.
    deferred_ = true;
    return;
  }
  if (open_ && RoundPending()) {
    // Upstream never reconciles one key concurrently: run again once the
    // writes in flight are answered.
    if (event.time_ns - round_start_ < kRoundDeadline) {
      dirty_ = true;
      return;
    }
    errors_.push_back("abandoned: no result for the subnet writes in flight");
  }
  Run(why, event, world, emit, options);
}

void SubnetsController::OnSynced(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                                 const Options& options) {
  if (!deferred_ || !world.Synced()) return;
  deferred_ = false;
  Trigger("initial lists complete", event, world, emit, options);
}

namespace {
uint64_t NumericVersion(std::string_view rv) {
  uint64_t v = 0;
  return absl::SimpleAtoi(Av(rv), &v) ? v : 0;
}
}  // namespace

void SubnetsController::Observe(const engine::Event& event) {
  newest_rv_ = std::max(newest_rv_, NumericVersion(event.resource_version));
}

bool SubnetsController::ReadStale(const engine::Event& event) const {
  uint64_t rv = NumericVersion(event.resource_version);
  return rv != 0 && rv < read_rv_;
}

void SubnetsController::OnTimer(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                                const Options& options) {
  if (requeue_.IsStale(event.time_ns)) return;
  Trigger("timer", event, world, emit, options);
}

std::vector<std::pair<std::string, std::string>> SubnetsController::PendingWrites() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [id, p] : pending_) {
    if (p.round == round_) out.emplace_back(id, p.target);
  }
  return out;
}

bool SubnetsController::RoundPending() const {
  for (const auto& [id, p] : pending_) {
    if (p.round == round_) return true;
  }
  return false;
}

std::string SubnetsController::Write(std::string_view why, std::string_view step, std::string_view drift,
                                     const Json& object, const engine::Event& event, engine::Emit& emit) {
  std::string id = emit.Update(object);
  std::string target = engine::GetString(object, {"metadata", "name"});
  std::string nsg = step == "nsg" ? engine::GetString(object, {"spec", "networkSecurityGroup", "id"}) : "";
  remediations_.push_back(
      {event.seq, std::string(why), target, std::string(step), std::string(drift), id, "", std::move(nsg)});
  if (remediations_.size() > kRemediationCap) {
    remediations_.erase(remediations_.begin());
    ++remediation_base_;
  }
  pending_[id] = {target, std::string(step), round_, remediation_base_ + remediations_.size() - 1};
  return id;
}

void SubnetsController::Run(std::string_view why, const engine::Event& event, const engine::World& world,
                            engine::Emit& emit, const Options& options) {
  round_ = event.seq;
  round_start_ = event.time_ns;
  round_why_ = RoundWhy(event, requeue_.failures(), kSubnetsTimer);
  read_rv_ = newest_rv_;
  open_ = true;
  dirty_ = false;
  errors_.clear();
  const engine::Object* cluster = GetCluster(world);
  if (cluster == nullptr) {
    // Not observed yet: its Added event triggers us again (no backoff).
    open_ = false;
    return;
  }
  const Json& cj = cluster->json();
  Flags flags = Flags::FromCluster(cj);
  bool nsg_managed = flags.Enabled(kFlagNsgManaged);
  bool se_managed = flags.Enabled(kFlagServiceEndpointManaged);
  if (!flags.Enabled(kFlagSubnetsEnabled) || (!nsg_managed && !se_managed)) {
    open_ = false;
    requeue_.Forget();
    return;
  }
  const Json& spec = engine::Path(cj, {"spec"});
  if (auto s = CheckAzEnvironment(spec); !s.ok()) {
    errors_.push_back(std::string(Sv(s.message())));
    return Finish(event, world, emit, options);
  }
  auto subscription = SubscriptionOf(Str(spec, "resourceId"));
  if (!subscription.ok()) {
    errors_.push_back(std::string(Sv(subscription.status().message())));
    return Finish(event, world, emit, options);
  }
  auto subnets = DiscoverSubnets(world, *subscription);
  if (!subnets.ok()) {
    errors_.push_back(std::string(Sv(subnets.status().message())));
    return Finish(event, world, emit, options);
  }
  const Json& gateway_domains = engine::Path(spec, {"gatewayDomains"});
  bool egress_lockdown = gateway_domains.is_array() && !gateway_domains.empty();

  for (const ClusterSubnet& s : *subnets) {
    // A subnet never read, or read as gone, is a 404: skipped.
    const engine::Object* observed = FindAzureObject(world, "Subnet", s.id);
    Json current = observed ? observed->json() : Json();
    if (nsg_managed) {
      auto expected = ExpectedNsgId(spec, s.is_master);
      if (!expected.ok()) {
        errors_.push_back(std::string(Sv(expected.status().message())));
      } else if (observed != nullptr) {
        Json& props = current["spec"];
        if (!props.is_object()) {
          errors_.push_back(recon::StrCat(
              "received nil, expected a value in subnetProperties when trying to Get subnet ", s.id));
        } else {
          std::string have = engine::GetString(props, {"networkSecurityGroup", "id"});
          if (!EqualFold(have, *expected)) {
            std::string drift =
                have.empty() ? std::string("no NSG attached") : recon::StrCat("foreign NSG attached: ", have);
            // Only the NSG changes; every other property is written back as read.
            props["networkSecurityGroup"] = Json{{"id", *expected}};
            Write(why, "nsg", drift, current, event, emit);
          }
        }
      }
    }
    if (se_managed && !egress_lockdown && observed != nullptr) {
      // Builds on the NSG write above, as upstream's second GET would see it.
      if (!current["spec"].is_object()) current["spec"] = Json::object();
      Json& props = current["spec"];
      Json endpoints = props.contains("serviceEndpoints") && props["serviceEndpoints"].is_array()
                           ? props["serviceEndpoints"]
                           : Json::array();
      std::vector<std::string> missing;
      for (auto service : kRequiredServices) {
        if (HasSucceededEndpoint(endpoints, service)) continue;
        missing.emplace_back(service);
        // Non-Succeeded entries stay: upstream appends, it never removes.
        endpoints.push_back({{"service", service}, {"locations", Json::array({"*"})}});
      }
      if (!missing.empty()) {
        props["serviceEndpoints"] = std::move(endpoints);
        Write(why, "serviceEndpoints",
              recon::StrCat("missing service endpoints: ", absl::StrJoin(missing, ", ")), current, event,
              emit);
      }
    }
  }

  if (options.restore_default_nsg_rules && nsg_managed &&
      engine::Path(spec, {"architectureVersion"}) == Json(1)) {
    auto nsg_id = ExpectedNsgId(spec, false);
    const engine::Object* nsg =
        nsg_id.ok() ? FindAzureObject(world, "NetworkSecurityGroup", *nsg_id) : nullptr;
    std::string drift;
    if (nsg != nullptr) {
      if (auto fixed = RestoreDefaultRules(nsg->json(), options.api_visibility_public, &drift)) {
        Write(why, "nsgRules", drift, *fixed, event, emit);
      }
    }
  }

  if (!RoundPending()) return Finish(event, world, emit, options);
  requeue_.Deadline(emit, event.time_ns + kRoundDeadline);
}

void SubnetsController::Finish(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                               const Options& options) {
  open_ = false;
  last_error_ = absl::StrJoin(errors_, "\n");
  if (dirty_) {
    if (errors_.empty()) {
      requeue_.Forget();
    } else {
      requeue_.CountFailure();
    }
    return Run("requeued while busy", event, world, emit, options);
  }
  if (errors_.empty()) {
    requeue_.After(emit, event.time_ns, options.subnets_interval_ns);
  } else {
    requeue_.Backoff(emit, event.time_ns);
  }
}

bool SubnetsController::OnActionResult(const engine::Event& event, const engine::World& world,
                                       engine::Emit& emit, const Options& options) {
  auto it = pending_.find(std::string(event.action));
  if (it == pending_.end()) return false;
  Pending p = std::move(it->second);
  pending_.erase(it);
  bool not_found = !event.ok && event.status && *event.status == 404;
  std::string outcome = event.ok ? "ok" : not_found ? "not found, skipped" : ResultError(event);
  if (p.remediation >= remediation_base_ && p.remediation - remediation_base_ < remediations_.size()) {
    remediations_[p.remediation - remediation_base_].outcome = outcome;
  }
  if (event.ok && p.step == "nsg") {
    if (const engine::Object* cluster = GetCluster(world)) {
      // Upstream merge-patches this annotation once per re-attached NSG.
      Json obj = cluster->json();
      if (obj.is_object()) {
        obj.erase("status");
        Json& md = obj["metadata"];
        if (!md.is_object()) md = Json::object();
        if (!md["annotations"].is_object()) md["annotations"] = Json::object();
        md["annotations"][std::string(kSubnetTimestampAnnotation)] = FormatRfc1123(event.time_ns);
        emit.Update(obj);
      }
    }
  }
  if (!event.ok && !not_found && p.round == round_ && open_) {
    errors_.push_back(recon::StrCat(p.target, ": ", outcome));
  }
  if (open_ && p.round == round_ && !RoundPending()) Finish(event, world, emit, options);
  return true;
}

Json SubnetsController::ToJson() const {
  Json pending = Json::object();
  for (const auto& [id, p] : pending_) {
    pending[id] = {
        {"target", p.target}, {"step", p.step}, {"round", p.round}, {"remediation", p.remediation}};
  }
  Json rem = Json::array();
  for (const auto& r : remediations_) {
    rem.push_back({{"seq", r.seq},
                   {"trigger", r.trigger},
                   {"target", r.target},
                   {"step", r.step},
                   {"drift", r.drift},
                   {"action", r.action},
                   {"outcome", r.outcome}});
    if (!r.nsg.empty()) rem.back()["nsg"] = r.nsg;
  }
  Json j = {{"pending", std::move(pending)},
            {"round", round_},
            {"roundStart", round_start_},
            {"open", open_},
            {"dirty", dirty_},
            {"errors", errors_},
            {"lastError", last_error_},
            {"requeue", requeue_.ToJson()},
            {"remediations", std::move(rem)},
            {"remediationBase", remediation_base_}};
  if (deferred_) j["deferred"] = true;  // only when set: earlier snapshots read back the same
  if (!round_why_.empty()) j["roundWhy"] = round_why_;
  if (newest_rv_ != 0) j["newestRv"] = newest_rv_;
  if (read_rv_ != 0) j["readRv"] = read_rv_;
  return j;
}

void SubnetsController::FromJson(const Json& j) {
  *this = SubnetsController();
  if (!j.is_object()) return;
  const Json& pending = engine::Path(j, {"pending"});
  if (pending.is_object()) {
    for (auto it = pending.begin(); it != pending.end(); ++it) {
      pending_[it.key()] = {Str(it.value(), "target"), Str(it.value(), "step"), U64(it.value(), "round"),
                            size_t(U64(it.value(), "remediation"))};
    }
  }
  round_ = U64(j, "round");
  round_start_ = int64_t(U64(j, "roundStart"));
  round_why_ = Str(j, "roundWhy");
  open_ = engine::Path(j, {"open"}) == Json(true);
  dirty_ = engine::Path(j, {"dirty"}) == Json(true);
  deferred_ = engine::Path(j, {"deferred"}) == Json(true);
  newest_rv_ = U64(j, "newestRv");
  read_rv_ = U64(j, "readRv");
  const Json& errors = engine::Path(j, {"errors"});
  if (errors.is_array()) {
    for (const auto& e : errors) {
      if (e.is_string()) errors_.push_back(e.get<std::string>());
    }
  }
  last_error_ = Str(j, "lastError");
  requeue_.FromJson(engine::Path(j, {"requeue"}));
  const Json& rem = engine::Path(j, {"remediations"});
  if (rem.is_array()) {
    for (const auto& r : rem) {
      remediations_.push_back({U64(r, "seq"), Str(r, "trigger"), Str(r, "target"), Str(r, "step"),
                               Str(r, "drift"), Str(r, "action"), Str(r, "outcome"), Str(r, "nsg")});
    }
  }
  remediation_base_ = U64(j, "remediationBase");
}

}  // namespace recon::aro
