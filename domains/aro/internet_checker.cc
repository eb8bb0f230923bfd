#include "domains/aro/internet_checker.h"

#include <algorithm>

#include "absl/strings/str_join.h"
#include "base/strings.h"
#include "domains/aro/common.h"
#include "domains/aro/flags.h"

namespace recon::aro {

std::string InternetChecker::ProbeName(const Options& options) {
  return recon::StrCat("aro/internet/", options.role);
}

std::string InternetChecker::ConditionType(const Options& options) {
  return options.master() ? "InternetReachableFromMaster" : "InternetReachableFromWorker";
}

void InternetChecker::Trigger(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                              ClusterStatus& status, const Options& options) {
  if (open_) {
    dirty_ = true;  // one reconcile at a time: rerun when this round closes
    return;
  }
  Start(event, world, emit, status, options);
}

void InternetChecker::OnTimer(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                              ClusterStatus& status, const Options& options) {
  if (requeue_.IsStale(event.time_ns)) return;
  if (open_) {
    // The round's deadline: close it, counting silent URLs as failed.
    if (event.time_ns - start_ >= kProbeRoundDeadline) return Finish(event, world, emit, status, options);
    dirty_ = true;
    return;
  }
  Start(event, world, emit, status, options);
}

void InternetChecker::Start(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                            ClusterStatus& status, const Options& options) {
  const engine::Object* cluster = GetCluster(world);
  if (cluster == nullptr) return;  // its Added event triggers us again
  std::string stamp = options.master() ? options.operator_version : "";
  Flags flags = Flags::FromCluster(cluster->json());
  if (!flags.Enabled(kFlagCheckerEnabled)) {
    status.SetChecker("InternetChecker", {ConditionType(options), std::string(kUnknown), "", "", ""}, stamp,
                      event, world, emit);
    requeue_.Forget();
    return;
  }
  slots_.clear();
  const Json& urls = engine::Path(cluster->json(), {"spec", "internetChecker", "urls"});
  if (urls.is_array()) {
    for (const auto& u : urls) {
      if (u.is_string()) slots_.push_back({u.get<std::string>(), false, ""});
    }
  }
  open_ = true;
  dirty_ = false;
  start_ = event.time_ns;
  round_ = event.seq;
  if (slots_.empty()) return Finish(event, world, emit, status, options);  // no URL, no error: True
  std::string probe = ProbeName(options);
  for (const auto& s : slots_) emit.Probe(probe, s.url);
  requeue_.Deadline(emit, event.time_ns + kProbeRoundDeadline);
}

bool InternetChecker::OnProbe(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                              ClusterStatus& status, const Options& options) {
  if (event.probe != ProbeName(options)) return false;
  if (!open_) return true;  // an answer from a round already closed
  Slot* slot = nullptr;
  for (auto& s : slots_) {
    if (!s.answered && s.url == event.target) {
      slot = &s;
      break;
    }
  }
  if (slot == nullptr) return true;
  slot->answered = true;
  // Any HTTP answer, whatever its status, means the network path works.
  bool reachable = event.ok || event.status.has_value();
  if (!reachable) {
    slot->error =
        recon::StrCat(slot->url, ": ", event.detail.empty() ? std::string_view("unreachable") : event.detail);
  }
  if (std::all_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.answered; })) {
    Finish(event, world, emit, status, options);
  }
  return true;
}

void InternetChecker::Finish(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                             ClusterStatus& status, const Options& options) {
  std::vector<std::string> lines;
  for (const auto& s : slots_) {
    if (!s.answered) {
      lines.push_back(recon::StrCat(s.url, ": no probe answer before the round deadline"));
    } else if (!s.error.empty()) {
      lines.push_back(s.error);
    }
  }
  // Upstream joins in completion order; a fixed order keeps replays stable.
  std::sort(lines.begin(), lines.end());
  open_ = false;
  slots_.clear();
  Condition c{ConditionType(options), std::string(kTrue), "", "CheckDone", "Outgoing connection successful"};
  if (!lines.empty())
    c = {ConditionType(options), std::string(kFalse), "", "CheckFailed", absl::StrJoin(lines, "\n")};
  status.SetChecker("InternetChecker", c, options.master() ? options.operator_version : "", event, world,
                    emit);
  if (dirty_) {
    if (lines.empty()) {
      requeue_.Forget();
    } else {
      requeue_.CountFailure();
    }
    return Start(event, world, emit, status, options);
  }
  if (lines.empty()) {
    requeue_.After(emit, event.time_ns, kHour);
  } else {
    requeue_.Backoff(emit, event.time_ns);
  }
}

std::vector<std::pair<std::string, bool>> InternetChecker::Urls() const {
  std::vector<std::pair<std::string, bool>> out;
  for (const auto& s : slots_) out.emplace_back(s.url, s.answered);
  return out;
}

Json InternetChecker::ToJson() const {
  Json slots = Json::array();
  for (const auto& s : slots_)
    slots.push_back({{"url", s.url}, {"answered", s.answered}, {"error", s.error}});
  Json j = {{"slots", std::move(slots)},
            {"open", open_},
            {"dirty", dirty_},
            {"start", start_},
            {"requeue", requeue_.ToJson()}};
  if (round_ != 0) j["round"] = round_;  // only when set: earlier snapshots read back the same
  return j;
}

void InternetChecker::FromJson(const Json& j) {
  *this = InternetChecker();
  if (!j.is_object()) return;
  const Json& slots = engine::Path(j, {"slots"});
  if (slots.is_array()) {
    for (const auto& s : slots) {
      slots_.push_back({Str(s, "url"), engine::Path(s, {"answered"}) == Json(true), Str(s, "error")});
    }
  }
  open_ = engine::Path(j, {"open"}) == Json(true);
  dirty_ = engine::Path(j, {"dirty"}) == Json(true);
  const Json& start = engine::Path(j, {"start"});
  start_ = start.is_number_integer() ? start.get<int64_t>() : 0;
  round_ = U64(j, "round");
  requeue_.FromJson(engine::Path(j, {"requeue"}));
}

}  // namespace recon::aro
