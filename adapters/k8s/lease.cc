#include "adapters/k8s/lease.h"

#include "absl/time/time.h"
#include "base/strings.h"
#include "engine/json.h"

namespace recon::k8s {

std::string FormatMicroTime(int64_t time_ns) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", absl::FromUnixNanos(time_ns), absl::UTCTimeZone());
}

absl::Status ParseLease(std::string_view json, LeaseRecord* out) {
  auto j = engine::ParseJson(json);
  if (!j.ok()) return absl::InvalidArgumentError(recon::StrCat("lease: ", Sv(j.status().message())));
  const engine::Json& spec = engine::Path(*j, {"spec"});
  *out = LeaseRecord{};
  out->holder = engine::GetString(spec, {"holderIdentity"});
  out->acquire_time = engine::GetString(spec, {"acquireTime"});
  out->renew_time = engine::GetString(spec, {"renewTime"});
  const engine::Json& d = engine::Path(spec, {"leaseDurationSeconds"});
  if (d.is_number_integer()) out->duration_s = d.get<int64_t>();
  const engine::Json& t = engine::Path(spec, {"leaseTransitions"});
  if (t.is_number_integer()) out->transitions = t.get<int64_t>();
  out->resource_version = engine::GetString(*j, {"metadata", "resourceVersion"});
  return absl::OkStatus();
}

std::string LeaderElector::Body(const LeaseRecord& r) const {
  engine::Json md = {{"name", config_.name}, {"namespace", config_.ns}};
  if (!r.resource_version.empty()) md["resourceVersion"] = r.resource_version;
  engine::Json spec = engine::Json::object();
  spec["holderIdentity"] = r.holder;
  spec["leaseDurationSeconds"] = r.duration_s;
  if (!r.acquire_time.empty()) spec["acquireTime"] = r.acquire_time;
  if (!r.renew_time.empty()) spec["renewTime"] = r.renew_time;
  spec["leaseTransitions"] = r.transitions;
  engine::Json lease = {
      {"apiVersion", "coordination.k8s.io/v1"}, {"kind", "Lease"}, {"metadata", md}, {"spec", spec}};
  return engine::Dump(lease);
}

void LeaderElector::Lose(std::string reason) {
  if (state_ != State::kLeader) return;
  state_ = State::kLost;
  lost_reason_ = std::move(reason);
}

std::optional<LeaderElector::Write> LeaderElector::Observe(const std::optional<LeaseRecord>& lease,
                                                           int64_t now_ns) {
  if (state_ == State::kLost) return std::nullopt;
  int64_t duration_s = config_.lease_duration_ns / 1'000'000'000;
  if (!lease) {
    if (state_ == State::kLeader) {
      Lose(recon::StrCat("lease ", config_.ns, "/", config_.name, " was deleted"));
      return std::nullopt;
    }
    LeaseRecord r;
    r.holder = config_.identity;
    r.duration_s = duration_s;
    r.acquire_time = r.renew_time = FormatMicroTime(now_ns);
    r.transitions = 0;
    pending_ = r;
    return Write{true, Body(r)};
  }
  // client-go judges expiry by when *we* saw the record change, not by the
  // holder's renewTime, so clock skew between replicas does not matter.
  bool changed = !have_observed_ || lease->holder != observed_.holder ||
                 lease->renew_time != observed_.renew_time || lease->transitions != observed_.transitions ||
                 lease->resource_version != observed_.resource_version;
  if (changed) {
    observed_ = *lease;
    observed_ns_ = now_ns;
    have_observed_ = true;
  }
  bool mine = lease->holder == config_.identity;
  if (state_ == State::kLeader && (!mine || lease->transitions != term_)) {
    Lose(recon::StrCat("lease ", config_.ns, "/", config_.name, " is now held by \"", lease->holder,
                       "\" (transitions ", lease->transitions, ")"));
    return std::nullopt;
  }
  int64_t held_for = (lease->duration_s > 0 ? lease->duration_s * 1'000'000'000 : config_.lease_duration_ns);
  if (!mine && !lease->holder.empty() && observed_ns_ + held_for > now_ns) return std::nullopt;
  LeaseRecord r = *lease;
  r.duration_s = duration_s;
  r.renew_time = FormatMicroTime(now_ns);
  if (!mine) {
    r.holder = config_.identity;
    r.acquire_time = r.renew_time;
    r.transitions = lease->transitions + 1;
  }
  pending_ = r;
  return Write{false, Body(r)};
}

void LeaderElector::WriteResult(bool ok, const std::optional<LeaseRecord>& lease, int64_t now_ns) {
  if (state_ == State::kLost || !pending_) return;
  LeaseRecord wrote = *pending_;
  pending_.reset();
  if (!ok) {
    Tick(now_ns);
    return;
  }
  LeaseRecord got = lease ? *lease : wrote;
  observed_ = got;
  observed_ns_ = now_ns;
  have_observed_ = true;
  renewed_ns_ = now_ns;
  term_ = got.transitions;
  state_ = State::kLeader;
}

void LeaderElector::Tick(int64_t now_ns) {
  if (state_ == State::kLeader && now_ns - renewed_ns_ > config_.renew_deadline_ns) {
    Lose(recon::StrCat("could not renew lease ", config_.ns, "/", config_.name,
                       " within the renew deadline (", config_.renew_deadline_ns / 1'000'000, " ms)"));
  }
}

std::optional<LeaderElector::Write> LeaderElector::Release(int64_t now_ns) {
  if (state_ != State::kLeader) return std::nullopt;
  LeaseRecord r = observed_;
  r.holder = "";
  r.duration_s = 1;
  r.renew_time = FormatMicroTime(now_ns);
  state_ = State::kFollower;
  term_ = -1;
  return Write{false, Body(r)};
}

}  // namespace recon::k8s
