// `recon explain` for samples: the management-state transitions and, for a
// pending state, what it waits on and since when (the "Removed hung"
// incident, reference §14.3). Condition changes are reported by the engine
// from our updateStatus actions; this adds what conditions cannot say.
#include <algorithm>

#include "absl/strings/str_join.h"
#include "base/strings.h"
#include "domains/samples/names.h"
#include "domains/samples/reducer.h"
#include "engine/time_format.h"

namespace recon::samples {
namespace {

constexpr std::string_view kSubject = "Config cluster";

// "10m", "2m30s", "45s", "1h5m": whole seconds, as a person reads them.
std::string Duration(int64_t ns) {
  int64_t s = ns / kNsPerSecond;
  std::string out;
  if (s >= 3600) recon::StrAppend(&out, s / 3600, "h");
  if (s % 3600 >= 60) recon::StrAppend(&out, (s % 3600) / 60, "m");
  if (s % 60 != 0 || out.empty()) recon::StrAppend(&out, s % 60, "s");
  return out;
}

// "2 in-progress imports (jenkins, nodejs)"; a long list is cut after ten
// names (the RemovePending message carries all of them).
std::string Imports(const std::vector<std::string>& names) {
  constexpr size_t kShown = 10;
  std::vector<std::string> shown(names.begin(), names.begin() + std::min(names.size(), kShown));
  std::string list = absl::StrJoin(shown, ", ");
  if (names.size() > kShown) recon::StrAppend(&list, ", +", names.size() - kShown, " more");
  return recon::StrCat(names.size(), names.size() == 1 ? " in-progress import (" : " in-progress imports (",
                       list, ")");
}

}  // namespace

void SamplesReducer::Explain(const Event& ev, const World& world,
                             const std::vector<engine::ActionRecord>& actions,
                             engine::Timeline& timeline) const {
  const uint64_t seq = ev.seq;
  const int64_t now = ev.time_ns;
  auto add = [&](std::string_view kind, std::string text) {
    timeline.Add(seq, now, std::string(kDomain), std::string(kSubject), std::string(kind), std::move(text));
  };
  auto at = [&](uint64_t s, int64_t ns) {
    return recon::StrCat("seq ", s, " (", engine::FormatClock(ns), ")");
  };

  // Bootstrap: the default Config, and why it is Managed or Removed.
  for (const auto& a : actions) {
    if (a.verb == "probe" && a.probe == kRegistryProbe) {
      add("wait",
          recon::StrCat("no Config yet and no cluster fact says whether the samples registry answers: "
                        "waiting on the probe ",
                        a.probe, " -> ", a.target, " to bootstrap Managed or Removed"));
    }
    if (a.verb != "create" || a.object.kind != "Config" || a.object.name != kConfigName) continue;
    auto body = engine::ParseJson(a.body);
    std::string mgmt = body.ok() ? engine::GetString(*body, {"spec", "managementState"}) : "";
    std::string why;
    if (ev.type == engine::EventType::kDeleted) {
      why = "the Config was deleted: recreating the default";
    } else if (ev.type == engine::EventType::kProbe) {
      why = ev.ok ? "the registry probe answered" : recon::StrCat("the registry probe failed: ", ev.detail);
    } else if (mgmt == kRemoved && st_.tbr_unreachable) {
      why = "the cluster is disconnected (terms-based registry unreachable)";
    } else if (mgmt == kRemoved && world.FactBool("ipv6")) {
      why = "single-stack IPv6 cluster";
    } else if (mgmt == kRemoved) {
      why = "unsupported architecture or the image config blocks the samples registry";
    } else {
      why = "the samples registry is reachable";
    }
    add("state", recon::StrCat("bootstrap: created the default Config as ", mgmt, " (", why, ")"));
  }

  // Management state: what the user asked (spec) and what the operator
  // reached (status, as we wrote it).
  if (ev.IsObject() && ev.group == kSamplesGroup && ev.kind == "Config" && ev.name == kConfigName &&
      ev.ns.empty()) {
    std::string spec;
    if (ev.type != engine::EventType::kDeleted) {
      if (const engine::Object* o = world.Get(kSamplesGroup, "Config", "", kConfigName))
        spec = engine::GetString(o->json(), {"spec", "managementState"});
    }
    if (ev.type == engine::EventType::kDeleted) {
      add("state", "Config deleted");
      memo_.spec_mgmt.clear();
      memo_.status_mgmt.clear();
    } else {
      if (spec != memo_.spec_mgmt) {
        add("state",
            recon::StrCat("spec.managementState ", memo_.spec_mgmt.empty() ? "unset" : memo_.spec_mgmt,
                          " -> ", spec.empty() ? "\"\"" : spec));
        memo_.spec_mgmt = spec;
      }
      // The status as observed (a log may start with a Config that already
      // has one); our own writes are reported below when emitted.
      std::string status;
      if (const engine::Object* o = world.Get(kSamplesGroup, "Config", "", kConfigName))
        status = engine::GetString(o->json(), {"status", "managementState"});
      if (memo_.status_mgmt.empty() && !status.empty()) {
        add("state", recon::StrCat("status.managementState is ", status));
        memo_.status_mgmt = status;
      }
    }
  }
  for (const auto& a : actions) {
    if (a.verb != "updateStatus" || a.object.kind != "Config" || a.object.name != kConfigName) continue;
    auto body = engine::ParseJson(a.body);
    if (!body.ok()) continue;
    std::string status = engine::GetString(*body, {"status", "managementState"});
    if (status != memo_.status_mgmt) {
      add("state",
          recon::StrCat("status.managementState ", memo_.status_mgmt.empty() ? "unset" : memo_.status_mgmt,
                        " -> ", status.empty() ? "\"\"" : status));
      memo_.status_mgmt = status;
    }
  }

  // Removal: requested, waiting on imports, gave up or finished, completed
  // or withdrawn.
  const RemovalRecord* r = st_.removal ? &*st_.removal : nullptr;
  if (memo_.removal_seq != 0 && (r == nullptr || r->requested_seq != memo_.removal_seq)) {
    // The removal we followed ended without this event completing it.
    const RemovalRecord* old = nullptr;
    for (const auto& p : st_.past_removals)
      if (p.requested_seq == memo_.removal_seq) old = &p;
    if (old != nullptr && old->completed_seq == 0) {
      std::string text = recon::StrCat("Removed request of seq ", old->requested_seq,
                                       " withdrawn before samples were removed");
      if (!old->waiting_on.empty() && old->gave_up_seq == 0)
        recon::StrAppend(&text, " (it was waiting on ", Imports(old->waiting_on), " since seq ",
                         old->waiting_since_seq, ")");
      add("state", text);
    }
    memo_.removal_seq = 0;
    memo_.waiting_on.clear();
    memo_.first_waiting_on.clear();
  }
  if (r != nullptr) {
    if (memo_.removal_seq == 0) {
      memo_.removal_seq = r->requested_seq;
      if (r->requested_seq == seq)
        add("state", recon::StrCat("Removed requested (removalImportWait=", removal_wait_text_, ")"));
    }
    const bool limited = r->deadline_ns != 0;
    if (r->waiting_since_seq == seq) memo_.first_waiting_on = r->waiting_on;
    if (r->waiting_since_seq == seq && r->gave_up_seq != seq) {
      std::string text = recon::StrCat("Removed waiting on ", Imports(r->waiting_on), " since ",
                                       at(r->waiting_since_seq, r->waiting_since_ns));
      if (limited) {
        recon::StrAppend(&text, "; gives up at ", engine::FormatClock(r->deadline_ns), " (",
                         removal_wait_text_, " limit)");
      } else {
        recon::StrAppend(&text, "; no limit (removalImportWait=forever): only the imports finishing ends it");
      }
      add("wait", text);
    } else if (r->waiting_since_seq != 0 && r->gave_up_seq == 0 && r->completed_seq == 0 &&
               !r->waiting_on.empty() && r->waiting_on != memo_.waiting_on) {
      add("wait", recon::StrCat("still waiting on ", Imports(r->waiting_on), " since ",
                                at(r->waiting_since_seq, r->waiting_since_ns), ", ",
                                Duration(now - r->waiting_since_ns), " so far"));
    }
    if (r->completed_seq == seq) {
      // One sentence for the whole story, as a person would tell it.
      std::string text = recon::StrCat("Removed requested at ", at(r->requested_seq, r->requested_ns));
      if (r->waiting_since_seq != 0) {
        const std::vector<std::string>& on = !memo_.first_waiting_on.empty() ? memo_.first_waiting_on
                                             : r->gave_up_seq != 0           ? r->abandoned
                                                                             : memo_.waiting_on;
        recon::StrAppend(&text, " — waited on ", Imports(on), " since seq ", r->waiting_since_seq);
        if (r->gave_up_seq != 0) {
          recon::StrAppend(&text, "; gave up at seq ", r->gave_up_seq, " (", removal_wait_text_,
                           " limit), abandoned: ", absl::StrJoin(r->abandoned, ", "));
        } else {
          recon::StrAppend(&text, "; the imports finished after ", Duration(now - r->waiting_since_ns));
        }
      } else {
        recon::StrAppend(&text, " — nothing to wait for");
      }
      recon::StrAppend(&text, "; samples removed at seq ", seq);
      add("state", text);
    }
    memo_.waiting_on = r->completed_seq != 0 ? std::vector<std::string>{} : r->waiting_on;
  }

  // Import failures: which imagestreams fail (they get a ConfigMap each and
  // are retried by the samples/reimport timer).
  if (st_.failing != memo_.failing) {
    std::vector<std::string> now_failing(st_.failing.begin(), st_.failing.end());
    std::vector<std::string> fixed;
    for (const auto& n : memo_.failing)
      if (!st_.failing.contains(n)) fixed.push_back(n);
    std::string text = now_failing.empty()
                           ? std::string("no imagestream import is failing")
                           : recon::StrCat("failing imagestream imports: ", absl::StrJoin(now_failing, ", "));
    if (!fixed.empty()) recon::StrAppend(&text, " (recovered: ", absl::StrJoin(fixed, ", "), ")");
    if (st_.reimport_timer_ns != 0)
      recon::StrAppend(&text, "; next re-import at ", engine::FormatClock(st_.reimport_timer_ns));
    add("note", text);
    memo_.failing = st_.failing;
  }
}

}  // namespace recon::samples
