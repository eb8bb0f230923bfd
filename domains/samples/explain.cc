// `recon explain` for samples: the management-state transitions and, for a
// pending state, what it waits on and since when (the "Removed hung"
// incident, reference §14.3), noted by Reduce through Emit::Note. Condition
// changes are reported by the engine from our updateStatus actions; this
// adds what conditions cannot say.
#include <algorithm>

#include "absl/strings/str_join.h"
#include "base/strings.h"
#include "domains/samples/names.h"
#include "domains/samples/reducer.h"
#include "engine/time_format.h"

namespace recon::samples {
namespace {

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

std::string At(uint64_t seq, int64_t ns) {
  return recon::StrCat("seq ", seq, " (", engine::FormatClock(ns), ")");
}

void Add(Emit& emit, std::string_view kind, std::string text) {
  emit.Note(std::string(kExplainSubject), std::string(kind), std::move(text));
}

}  // namespace

void SamplesReducer::NoteBootstrap(const Ctx& c, std::string_view mgmt) const {
  if (!c.emit.explaining()) return;
  const Event& ev = c.ev;
  std::string why;
  if (ev.type == records::EventType::kDeleted) {
    why = "the Config was deleted: recreating the default";
  } else if (ev.type == records::EventType::kProbe) {
    why = ev.ok ? "the registry probe answered"
                : recon::StrCat("the registry probe failed for 5 minutes, the last time: ", ev.detail);
  } else if (ev.type == records::EventType::kTimer && ev.timer == kRegistryProbeTimer) {
    why = "the registry probe failed for 5 minutes";
  } else if (mgmt == kRemoved && st_.tbr_unreachable) {
    why = "the cluster is disconnected (terms-based registry unreachable)";
  } else if (mgmt == kRemoved && c.world.FactBool("ipv6")) {
    why = "single-stack IPv6 cluster";
  } else if (mgmt == kRemoved) {
    why = "unsupported architecture or the image config blocks the samples registry";
  } else {
    why = "the samples registry is reachable";
  }
  Add(c.emit, "state", recon::StrCat("bootstrap: created the default Config as ", mgmt, " (", why, ")"));
}

SamplesReducer::NotesBefore SamplesReducer::NotesState() const {
  NotesBefore b{st_.observed_spec_mgmt, st_.written_status_mgmt, 0, {}, st_.failing};
  if (const RemovalRecord* r = st_.removal ? &*st_.removal : nullptr) {
    b.removal_seq = r->requested_seq;
    if (r->completed_seq == 0) b.waiting_on = r->waiting_on;
  }
  return b;
}

void SamplesReducer::AddNotes(const Event& ev, const World& world, const NotesBefore& before,
                              Emit& emit) const {
  ConfigNotes(ev, world, before, emit);
  RemovalNotes(ev, before, emit);
  // Import failures: which imagestreams fail (they get a ConfigMap each and
  // are retried by the samples/reimport timer).
  if (st_.failing != before.failing) {
    std::vector<std::string> now_failing(st_.failing.begin(), st_.failing.end());
    std::vector<std::string> fixed;
    for (const auto& n : before.failing)
      if (!st_.failing.contains(n)) fixed.push_back(n);
    std::string text = now_failing.empty()
                           ? std::string("no imagestream import is failing")
                           : recon::StrCat("failing imagestream imports: ", absl::StrJoin(now_failing, ", "));
    if (!fixed.empty()) recon::StrAppend(&text, " (recovered: ", absl::StrJoin(fixed, ", "), ")");
    if (st_.reimport_timer_ns != 0)
      recon::StrAppend(&text, "; next re-import at ", engine::FormatClock(st_.reimport_timer_ns));
    Add(emit, "note", text);
  }
}

void SamplesReducer::ConfigNotes(const Event& ev, const World& world, const NotesBefore& before,
                                 Emit& emit) const {
  // Management state: what the user asked (spec) and what the operator
  // reached (status, as we wrote it).
  std::string status = before.status_mgmt;
  if (ev.IsObject() && ev.group == kSamplesGroup && ev.kind == "Config" && ev.name == kConfigName &&
      ev.ns.empty()) {
    if (ev.type == records::EventType::kDeleted) {
      Add(emit, "state", "Config deleted");
      status.clear();
    } else {
      const std::string& spec = st_.observed_spec_mgmt;
      if (spec != before.spec_mgmt) {
        Add(emit, "state",
            recon::StrCat("spec.managementState ", before.spec_mgmt.empty() ? "unset" : before.spec_mgmt,
                          " -> ", spec.empty() ? "\"\"" : spec));
      }
      // The status as observed (a log may start with a Config that already
      // has one); our own writes are reported below when emitted.
      if (status.empty() && world.Get(kSamplesGroup, "Config", "", kConfigName) != nullptr) {
        status = engine::GetString(world.Get(kSamplesGroup, "Config", "", kConfigName)->json(),
                                   {"status", "managementState"});
        if (!status.empty()) Add(emit, "state", recon::StrCat("status.managementState is ", status));
      }
    }
  }
  for (const auto& a : emit.actions()) {
    if (a.verb != "updateStatus" || a.object.kind != "Config" || a.object.name != kConfigName) continue;
    auto body = engine::ParseJson(a.body);
    if (!body.ok()) continue;
    std::string written = engine::GetString(*body, {"status", "managementState"});
    if (written != status) {
      Add(emit, "state",
          recon::StrCat("status.managementState ", status.empty() ? "unset" : status, " -> ",
                        written.empty() ? "\"\"" : written));
      status = written;
    }
  }
}

void SamplesReducer::RemovalNotes(const Event& ev, const NotesBefore& before, Emit& emit) const {
  const uint64_t seq = ev.seq;
  const int64_t now = ev.time_ns;
  // Removal: requested, waiting on imports, gave up or finished, completed
  // or withdrawn.
  const RemovalRecord* r = st_.removal ? &*st_.removal : nullptr;
  std::vector<std::string> waiting_on = before.waiting_on;
  bool followed = before.removal_seq != 0;
  if (followed && (r == nullptr || r->requested_seq != before.removal_seq)) {
    // The removal in progress ended without this event completing it.
    const RemovalRecord* old = nullptr;
    for (const auto& p : st_.past_removals)
      if (p.requested_seq == before.removal_seq) old = &p;
    if (old != nullptr && old->completed_seq == 0) {
      std::string text = recon::StrCat("Removed request of seq ", old->requested_seq,
                                       " withdrawn before samples were removed");
      if (!old->waiting_on.empty() && old->gave_up_seq == 0)
        recon::StrAppend(&text, " (it was waiting on ", Imports(old->waiting_on), " since seq ",
                         old->waiting_since_seq, ")");
      Add(emit, "state", text);
    }
    followed = false;
    waiting_on.clear();
  }
  if (r == nullptr) return;
  if (!followed && r->requested_seq == seq)
    Add(emit, "state", recon::StrCat("Removed requested (removalImportWait=", removal_wait_text_, ")"));
  if (r->waiting_since_seq == seq && r->gave_up_seq != seq) {
    std::string text = recon::StrCat("Removed waiting on ", Imports(r->waiting_on), " since ",
                                     At(r->waiting_since_seq, r->waiting_since_ns));
    if (r->deadline_ns != 0) {
      recon::StrAppend(&text, "; gives up at ", engine::FormatClock(r->deadline_ns), " (", removal_wait_text_,
                       " limit)");
    } else {
      recon::StrAppend(&text, "; no limit (removalImportWait=forever): only the imports finishing ends it");
    }
    Add(emit, "wait", text);
  } else if (r->waiting_since_seq != 0 && r->gave_up_seq == 0 && r->completed_seq == 0 &&
             !r->waiting_on.empty() && r->waiting_on != waiting_on) {
    Add(emit, "wait",
        recon::StrCat("still waiting on ", Imports(r->waiting_on), " since ",
                      At(r->waiting_since_seq, r->waiting_since_ns), ", ",
                      Duration(now - r->waiting_since_ns), " so far"));
  }
  if (r->completed_seq != seq) return;
  // One sentence for the whole story, as a person would tell it.
  std::string text = recon::StrCat("Removed requested at ", At(r->requested_seq, r->requested_ns));
  if (r->waiting_since_seq != 0) {
    // Snapshots before waited_on lack it: what the wait still knows.
    const std::vector<std::string>& on = !r->waited_on.empty() ? r->waited_on
                                         : r->gave_up_seq != 0 ? r->abandoned
                                                               : waiting_on;
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
  Add(emit, "state", text);
}

}  // namespace recon::samples
