// `recon explain --domain aro`: each subnet remediation with the drift that
// caused it and how its PUT ended, each AzureSubnets and checker round's
// outcome, and what a pending round waits on, noted by Reduce through
// Emit::Note. Condition changes themselves are reported by the engine from
// our updateStatus actions; these notes say why they happened.
#include "domains/aro/explain.h"

#include <algorithm>
#include <span>

#include "absl/strings/str_join.h"
#include "base/strings.h"
#include "domains/aro/aro_reducer.h"
#include "domains/aro/common.h"
#include "domains/aro/flags.h"
#include "domains/aro/subnet_discovery.h"
#include "engine/time_format.h"

namespace recon::aro {

namespace {

// Splits on `sep`; with `skip_empty`, empty pieces are dropped.
std::vector<std::string> Split(std::string_view s, char sep, bool skip_empty = false) {
  std::vector<std::string> out;
  size_t from = 0;
  while (true) {
    size_t at = s.find(sep, from);
    std::string_view piece =
        s.substr(from, at == std::string_view::npos ? std::string_view::npos : at - from);
    if (!skip_empty || !piece.empty()) out.emplace_back(piece);
    if (at == std::string_view::npos) break;
    from = at + 1;
  }
  return out;
}

}  // namespace

std::string ShortSubnet(std::string_view id) {
  std::vector<std::string> parts = Split(id, '/');
  // "", subscriptions, s, resourceGroups, rg, providers, ns, virtualNetworks, vnet, subnets, name
  if (parts.size() == 11 && EqualFold(parts[7], "virtualNetworks") && EqualFold(parts[9], "subnets")) {
    return recon::StrCat(parts[8], "/", parts[10]);
  }
  return std::string(id);
}

std::string ShortResource(std::string_view id) {
  size_t slash = id.rfind('/');
  if (slash == std::string_view::npos || slash + 1 == id.size()) return std::string(id);
  return recon::StrCat(".../", id.substr(slash + 1));
}

namespace {

constexpr std::string_view kSubnetsSubject = "AzureSubnets";
constexpr std::string_view kSpSubject = "ServicePrincipalChecker";

// "10:01:00", or "10:01:00.005" when a backoff lands between seconds.
std::string Clock(int64_t ns) {
  std::string t = engine::FormatRfc3339(ns);
  size_t tpos = t.find('T');
  if (tpos == std::string::npos) return t;
  t = t.substr(tpos + 1);
  if (!t.empty() && t.back() == 'Z') t.pop_back();
  return t;
}

std::string On(bool b) { return b ? "on" : "off"; }

std::string Plural(size_t n, std::string_view one, std::string_view many) {
  return recon::StrCat(n, " ", n == 1 ? one : many);
}

using Actions = std::span<const records::ActionRecord>;

const records::ActionRecord* FindTimer(Actions actions, std::string_view timer) {
  const records::ActionRecord* found = nullptr;
  for (const auto& a : actions) {
    if (a.verb == "setTimer" && a.timer == timer) found = &a;  // the last one wins, as in the runtime
  }
  return found;
}

std::vector<const records::ActionRecord*> Probes(Actions actions, std::string_view probe) {
  std::vector<const records::ActionRecord*> out;
  for (const auto& a : actions) {
    if (a.verb == "probe" && a.probe == probe) out.push_back(&a);
  }
  return out;
}

}  // namespace

std::string RoundWhy(const engine::Event& ev, int failures, std::string_view timer) {
  switch (ev.type) {
    case records::EventType::kTimer:
      if (ev.timer != timer) return recon::StrCat("timer ", ev.timer);
      return failures > 0
                 ? recon::StrCat("backoff retry after ", Plural(size_t(failures), "failure", "failures"))
                 : recon::StrCat("periodic re-run (", ev.timer, ")");
    case records::EventType::kAdded:
    case records::EventType::kModified:
    case records::EventType::kDeleted: {
      std::string verb = ev.type == records::EventType::kAdded      ? "observed"
                         : ev.type == records::EventType::kModified ? "changed"
                                                                    : "deleted";
      if (ev.group == kAroGroup && ev.kind == kClusterKind) {
        return ev.type == records::EventType::kAdded ? "Cluster observed" : "Cluster spec changed";
      }
      if (ev.group == kAzureGroup) return recon::StrCat(ev.kind, " ", ShortSubnet(ev.name), " read");
      std::string obj = ev.ns.empty() ? std::string(ev.name) : recon::StrCat(ev.ns, "/", ev.name);
      return recon::StrCat(ev.kind, " ", obj, " ", verb);
    }
    case records::EventType::kActionResult:
      return recon::StrCat("re-run after the writes in flight were answered (result of ", ev.action, ")");
    case records::EventType::kProbe:
      return "re-run: triggered while the previous round was in flight";
    case records::EventType::kCluster:
      return "initial lists complete (triggered before them)";
    default:
      return "triggered";
  }
}

namespace {

// The next run as said after a round: "next run at 11:00:02 (every 1h)" or
// "retry at 10:00:02.005 (backoff, failure #1)".
std::string Next(const records::ActionRecord* timer, bool ok, int failures, std::string_view period) {
  if (timer == nullptr) return "";
  if (ok) return recon::StrCat("; next run at ", Clock(timer->at_ns), " (", period, ")");
  return recon::StrCat("; retry at ", Clock(timer->at_ns), " (backoff, failure #", failures, ")");
}

std::string Period(int64_t ns) {
  if (ns % kHour == 0) return recon::StrCat("every ", ns / kHour, "h");
  if (ns % (60 * kSecond) == 0) return recon::StrCat("every ", ns / (60 * kSecond), "m");
  return recon::StrCat("every ", ns / kSecond, "s");
}

// The drift and its fix as a person reads them; `expected` is the NSG the
// write attaches ("" when unknown, e.g. explain started from a snapshot).
std::string Story(const Remediation& r, const std::string& expected) {
  if (r.step == "nsg") {
    std::string was;
    std::string what = "NSG detached";
    constexpr std::string_view kForeign = "foreign NSG attached: ";
    if (r.drift.rfind(kForeign, 0) == 0) {
      what = "foreign NSG attached";
      was = ShortResource(std::string_view(r.drift).substr(kForeign.size()));
    } else {
      was = "none";
    }
    std::string text = recon::StrCat(what, " (was ", was);
    if (!expected.empty()) recon::StrAppend(&text, ", expected ", ShortResource(expected));
    recon::StrAppend(&text, ") — re-attach");
    return text;
  }
  if (r.step == "serviceEndpoints") return recon::StrCat(r.drift, " — add them");
  if (r.step == "nsgRules") return recon::StrCat("default NSG rules drifted (", r.drift, ") — restore them");
  return r.drift;
}

std::string Subject(const Remediation& r) {
  return r.step == "nsgRules" ? recon::StrCat("NetworkSecurityGroup ", ShortResource(r.target))
                              : recon::StrCat("Subnet ", ShortSubnet(r.target));
}

std::string Outcome(const Remediation& r, uint64_t seq) {
  if (r.outcome == "ok") return recon::StrCat("ok at seq ", seq);
  if (r.outcome == "not found, skipped") return recon::StrCat("404 at seq ", seq, ": subnet gone, skipped");
  return recon::StrCat("failed at seq ", seq, ": ", r.outcome);
}

// The operator-flags note for the Cluster (nullptr: deleted).
std::string FlagsText(const Json* cluster, bool master) {
  if (cluster == nullptr) return "Cluster deleted: every controller waits for it to come back";
  Flags f = Flags::FromCluster(*cluster);
  std::string text = recon::StrCat(
      "operator flags", f.defaulted() ? " (map absent: RP defaults)" : "", ": azuresubnets ",
      On(f.Enabled(kFlagSubnetsEnabled)), " (nsg.managed ", On(f.Enabled(kFlagNsgManaged)),
      ", serviceendpoint.managed ", On(f.Enabled(kFlagServiceEndpointManaged)), "), checker ",
      On(f.Enabled(kFlagCheckerEnabled)), ", alertwebhook ", On(f.Enabled(kFlagAlertWebhookEnabled)),
      ", genevalogging ", On(f.Enabled(kFlagGenevaEnabled)));
  if (!f.Enabled(kFlagCheckerEnabled)) {
    recon::StrAppend(&text, "; checker off: the internet",
                     master ? " and service-principal checks are" : " check is",
                     " not run, conditions Unknown");
  }
  return text;
}

// What an open AzureSubnets round waits on; "" when nothing.
std::string SubnetsWaiting(const SubnetsController& sc) {
  if (!sc.open()) return "";
  auto writes = sc.PendingWrites();
  if (writes.empty()) return "";
  std::vector<std::string> parts;
  for (const auto& [id, target] : writes)
    parts.push_back(recon::StrCat("update ", id, " (", ShortSubnet(target), ")"));
  return recon::StrCat("round of seq ", sc.round(), " waits on ",
                       Plural(writes.size(), "PUT result", "PUT results"), ": ", absl::StrJoin(parts, ", "),
                       "; a trigger after ", Clock(sc.round_start() + 10 * 60 * kSecond), " abandons it");
}

// A checker round's notes: how the round before ended, that one started,
// or what it still waits on. `outcome(seq, targets, next timer)` says how
// it ended; `left` are the targets still unanswered after the event.
template <typename Outcome>
void CheckerNotes(const engine::Event& ev, engine::Emit& emit, const RoundBefore& round, bool open_now,
                  std::string_view probe, std::string_view timer, int failures, std::string_view subject,
                  Outcome outcome, std::string_view what, const std::vector<std::string>& left) {
  std::vector<const records::ActionRecord*> started = Probes(emit.actions(), probe);
  const records::ActionRecord* t = FindTimer(emit.actions(), timer);
  // Ended on this event, or began and ended on it (no probe to wait for).
  bool ended = round.open ? (!open_now || !started.empty()) : (!open_now && started.empty() && t != nullptr);
  if (ended) {
    std::string text = outcome(round.seq, round.targets, started.empty() ? t : nullptr);
    if (!started.empty()) recon::StrAppend(&text, "; re-checking at once (triggered during the round)");
    emit.Note(std::string(subject), "state", std::move(text));
  }
  if (!started.empty()) {
    std::string text = recon::StrCat(what, " started (", RoundWhy(ev, failures, timer), "): waiting on ",
                                     Plural(started.size(), "probe answer", "probe answers"));
    if (t != nullptr) recon::StrAppend(&text, "; round deadline ", Clock(t->at_ns));
    emit.Note(std::string(subject), "wait", std::move(text));
  } else if (round.open && open_now && ev.type == records::EventType::kProbe && ev.probe == probe) {
    emit.Note(std::string(subject), "wait",
              recon::StrCat("still waiting on ", left.size(), " of ", round.targets, ": ",
                            absl::StrJoin(left, ", "), " (round of seq ", round.seq, ")"));
  }
}

}  // namespace

NotesBefore AroReducer::NotesState() const {
  NotesBefore b;
  if (cluster_spec_.empty()) {
    b.flags = FlagsText(nullptr, options_.master());
  } else {
    auto spec = engine::ParseJson(cluster_spec_);
    Json cluster = {{"spec", spec.ok() ? *spec : Json()}};
    b.flags = FlagsText(&cluster, options_.master());
  }
  b.remediations = subnets_.remediations_total();
  b.subnets_waiting = SubnetsWaiting(subnets_);
  b.subnets_dirty = subnets_.dirty();
  if (internet_.open()) b.internet = {true, internet_.round(), internet_.Urls().size()};
  if (sp_.open()) b.sp = {true, sp_.round(), 1};
  return b;
}

void AroReducer::AddNotes(const engine::Event& ev, const engine::World& world, const NotesBefore& before,
                          engine::Emit& emit) const {
  // Operator flags: what is switched on, said again only when it changes.
  if (ev.IsObject() && ev.group == kAroGroup && ev.kind == kClusterKind && ev.name == kClusterName) {
    const engine::Object* cluster = GetCluster(world);
    std::string text =
        FlagsText(ev.type == records::EventType::kDeleted || cluster == nullptr ? nullptr : &cluster->json(),
                  options_.master());
    if (text != before.flags) emit.Note("Cluster cluster", "state", std::move(text));
  }
  if (options_.master()) {
    SubnetNotes(ev, world, before, emit);
    SubnetRoundNotes(ev, before, emit);
  }
  CheckerRoundNotes(ev, world, before, emit);
}

void AroReducer::SubnetNotes(const engine::Event& ev, const engine::World& world, const NotesBefore& before,
                             engine::Emit& emit) const {
  const SubnetsController& sc = subnets_;
  const engine::Object* cluster = GetCluster(world);
  // Subnets a round on this event had to skip: never read, or read as gone (404).
  if (sc.round() == ev.seq && cluster != nullptr && (sc.open() || FindTimer(emit.actions(), kSubnetsTimer))) {
    auto sub = SubscriptionOf(Str(engine::Path(cluster->json(), {"spec"}), "resourceId"));
    auto subnets =
        sub.ok() ? DiscoverSubnets(world, *sub) : absl::StatusOr<std::vector<ClusterSubnet>>(sub.status());
    if (subnets.ok()) {
      for (const auto& s : *subnets) {
        if (FindAzureObject(world, "Subnet", s.id) == nullptr) {
          emit.Note(recon::StrCat("Subnet ", ShortSubnet(s.id)), "note",
                    recon::StrCat("not found in Azure (404: never read or deleted): skipped this round (",
                                  s.is_master ? "master" : "worker", " subnet)"));
        }
      }
    }
  }
  // Drift seen on a subnet read that starts no round (upstream watches no
  // subnets): say what will repair it.
  if (ev.IsObject() && ev.group == kAzureGroup && ev.kind == "Subnet" &&
      ev.type != records::EventType::kDeleted && sc.round() != ev.seq && cluster != nullptr) {
    const Json& spec = engine::Path(cluster->json(), {"spec"});
    Flags f = Flags::FromCluster(cluster->json());
    auto sub = SubscriptionOf(Str(spec, "resourceId"));
    auto subnets =
        sub.ok() ? DiscoverSubnets(world, *sub) : absl::StatusOr<std::vector<ClusterSubnet>>(sub.status());
    const engine::Object* observed = FindAzureObject(world, "Subnet", ev.name);
    if (f.Enabled(kFlagSubnetsEnabled) && f.Enabled(kFlagNsgManaged) && subnets.ok() && observed != nullptr) {
      for (const auto& s : *subnets) {
        if (!EqualFold(s.id, ev.name)) continue;
        auto expected = ExpectedNsgId(spec, s.is_master);
        std::string have = engine::GetString(observed->json(), {"spec", "networkSecurityGroup", "id"});
        if (!expected.ok() || EqualFold(have, *expected)) break;
        std::string text = recon::StrCat(
            have.empty() ? "NSG detached" : "foreign NSG attached", " (now ",
            have.empty() ? std::string("none") : ShortResource(have), ", expected ", ShortResource(*expected),
            "): a subnet change is not a trigger; the next AzureSubnets round re-attaches it");
        if (sc.open()) {
          recon::StrAppend(&text, " (one is in flight)");
        } else if (sc.requeue().due() != 0) {
          recon::StrAppend(&text, " (aro/subnets timer at ", Clock(sc.requeue().due()),
                           ", or a master Machine / worker MachineSet change)");
        }
        emit.Note(recon::StrCat("Subnet ", ShortSubnet(s.id)), "wait", std::move(text));
        break;
      }
    }
  }
  // New remediations: the drift found and the write that fixes it.
  const uint64_t total = sc.remediations_total();
  const uint64_t base = total - sc.remediations().size();
  for (uint64_t i = std::max(before.remediations, base); i < total; ++i) {
    const Remediation& r = sc.remediations()[i - base];
    // The round's own reason is more precise than the controller's label.
    std::string trigger = r.seq == sc.round() && !sc.round_why().empty() ? sc.round_why() : r.trigger;
    emit.Note(Subject(r), "remediation",
              recon::StrCat(Story(r, r.nsg), ": update ", r.action, " (trigger: ", trigger, ")"));
  }
  // A PUT answered: the whole story in one line.
  if (ev.type == records::EventType::kActionResult) {
    for (const auto& r : sc.remediations()) {
      if (r.action != ev.action || r.outcome.empty()) continue;
      emit.Note(Subject(r), "remediation",
                recon::StrCat(Story(r, r.nsg), ", update ", r.action, " → ", Outcome(r, ev.seq)));
    }
  }
}

void AroReducer::SubnetRoundNotes(const engine::Event& ev, const NotesBefore& before,
                                  engine::Emit& emit) const {
  const SubnetsController& sc = subnets_;
  // A round that ended on this event.
  const records::ActionRecord* timer = FindTimer(emit.actions(), kSubnetsTimer);
  if (timer != nullptr && !sc.open()) {
    size_t n = 0;
    for (const auto& r : sc.remediations()) n += r.seq == sc.round() ? 1 : 0;
    std::string text = recon::StrCat("round of seq ", sc.round());
    if (!sc.round_why().empty()) recon::StrAppend(&text, " (", sc.round_why(), ")");
    bool ok = sc.last_error().empty();
    if (ok) {
      recon::StrAppend(&text, n == 0 ? ": no drift"
                                     : recon::StrCat(": ", Plural(n, "remediation", "remediations"),
                                                     ", every write answered"));
    } else {
      std::vector<std::string> lines = Split(sc.last_error(), '\n');
      recon::StrAppend(&text, ": ", Plural(lines.size(), "error", "errors"), ": ",
                       absl::StrJoin(lines, "; "));
    }
    recon::StrAppend(&text,
                     Next(timer, ok, sc.requeue().failures(),
                          recon::StrCat("aro.subnetsInterval, ", Period(options_.subnets_interval_ns))));
    emit.Note(std::string(kSubnetsSubject), "state", std::move(text));
  }
  // What an open round waits on, said when it changes.
  std::string waiting = SubnetsWaiting(sc);
  if (waiting != before.subnets_waiting && !waiting.empty())
    emit.Note(std::string(kSubnetsSubject), "wait", std::move(waiting));
  if (sc.dirty() && !before.subnets_dirty) {
    emit.Note(std::string(kSubnetsSubject), "wait",
              recon::StrCat("trigger deferred (", RoundWhy(ev, sc.requeue().failures(), kSubnetsTimer),
                            "): runs again once the writes in flight are answered"));
  }
}

namespace {

// The internet round's end: how many URLs answered, which failed and why.
std::string InternetOutcome(const Condition* c, std::string_view type, uint64_t seq, size_t n) {
  bool ok = c != nullptr && c->status == kTrue;
  std::string text = seq != 0 ? recon::StrCat("round of seq ", seq, ": ") : std::string("round: ");
  if (ok) {
    recon::StrAppend(&text,
                     n == 0 ? std::string("no URL to check")
                            : recon::StrCat("all ", n, n == 1 ? " URL" : " URLs", " reachable"),
                     " → ", type, " True");
  } else {
    std::vector<std::string> lines;
    if (c != nullptr) lines = Split(c->message, '\n', /*skip_empty=*/true);
    if (n > 0) recon::StrAppend(&text, n - std::min(n, lines.size()), " of ", n, " URLs reachable, ");
    recon::StrAppend(&text, "unreachable: ", absl::StrJoin(lines, "; "), " → ", type, " False");
  }
  return text;
}

// The service-principal round's end: the token answer and what it means.
std::string SpOutcome(const Condition* c, uint64_t seq) {
  std::string text = seq != 0 ? recon::StrCat("round of seq ", seq, ": ") : std::string("round: ");
  if (c == nullptr) {
    recon::StrAppend(&text, "no result");
  } else if (c->status == kTrue) {
    recon::StrAppend(&text, "token acquired, the service principal is valid → ServicePrincipalValid True");
  } else if (c->status == kFalse) {
    std::string code;
    for (std::string_view k : {"AADSTS7000215", "AADSTS7000222", "AADSTS700016"}) {
      if (c->message.find(k) != std::string::npos) code = std::string(k);
    }
    std::string_view meaning = code == "AADSTS7000215"   ? "invalid client secret"
                               : code == "AADSTS7000222" ? "client secret expired"
                                                         : "application not found in the tenant";
    recon::StrAppend(&text, "AAD rejected the credentials (", code, ": ", meaning,
                     ") → ServicePrincipalValid False");
    if (code != "AADSTS700016")
      recon::StrAppend(&text, "; fix: a new secret in kube-system/azure-credentials");
  } else {
    recon::StrAppend(&text, "could not validate (", c->message, ") → ServicePrincipalValid Unknown");
  }
  return text;
}

}  // namespace

void AroReducer::CheckerRoundNotes(const engine::Event& ev, const engine::World& world,
                                   const NotesBefore& before, engine::Emit& emit) const {
  const std::vector<Condition> conds = status_.Effective(world);
  const std::string itype = InternetChecker::ConditionType(options_);
  std::vector<std::string> left;
  for (const auto& [url, answered] : internet_.Urls())
    if (!answered) left.push_back(url);
  CheckerNotes(
      ev, emit, before.internet, internet_.open(), InternetChecker::ProbeName(options_), kInternetTimer,
      internet_.requeue().failures(), recon::StrCat("InternetChecker ", options_.role),
      [&](uint64_t seq, size_t n, const records::ActionRecord* next) {
        const Condition* c = FindCondition(conds, itype);
        return recon::StrCat(
            InternetOutcome(c, itype, seq, n),
            Next(next, c != nullptr && c->status == kTrue, internet_.requeue().failures(), "hourly"));
      },
      recon::StrCat("internet check (", options_.role, ")"), left);
  if (!options_.master()) return;
  left.clear();
  if (sp_.open()) left.push_back(sp_.target());
  CheckerNotes(
      ev, emit, before.sp, sp_.open(), kSpProbe, kSpTimer, sp_.requeue().failures(), kSpSubject,
      [&](uint64_t seq, size_t, const records::ActionRecord* next) {
        const Condition* c = FindCondition(conds, "ServicePrincipalValid");
        return recon::StrCat(SpOutcome(c, seq), Next(next, c != nullptr && c->status == kTrue,
                                                     sp_.requeue().failures(), "hourly"));
      },
      "service-principal check", left);
}

}  // namespace recon::aro
