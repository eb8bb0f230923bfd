// The adapter's leader election: renewing the Lease on the loop thread, and
// what a change of leadership does to the writes held or in flight.
#include <deque>
#include <optional>

#include "adapters/k8s/adapter.h"
#include "adapters/k8s/objects.h"
#include "base/strings.h"
#include "spdlog/spdlog.h"

namespace recon::k8s {

void K8sClusterAdapter::LeaseStep() {
  if (shut_down_ || !elector_) return;
  int64_t now = clock_.NowNs();
  elector_->Tick(now);
  AfterLeaseChange();
  if (elector_->state() == LeaderElector::State::kLost) return;
  auto again = [this] {
    loop_.After(options_.lease.retry_period_ns / 1'000'000, [this] { LeaseStep(); });
    ++lease_rounds_;
  };
  if (pause_renewal_) {
    again();
    return;
  }
  const LeaseConfig& c = elector_->config();
  const engine::ResourceType& lease_type = kLeaseType;
  http::HttpRequest get;
  get.url = api_->Url(ObjectPath(lease_type, c.ns, c.name));
  get.timeout_ms = c.renew_deadline_ns / 1'000'000;
  api_->Send(std::move(get), [this, again](http::HttpResponse r) {
    if (shut_down_ || r.error == "cancelled") return;
    std::optional<LeaseRecord> lease;
    if (r.status == 200) {
      LeaseRecord rec;
      if (!ParseLease(r.body, &rec).ok()) {
        again();
        return;
      }
      lease = rec;
    } else if (r.status != 404) {
      spdlog::warn("k8s: reading the leader lease: {}",
                   r.error.empty() ? StatusError(r.status, r.body) : recon::StrCat("transport: ", r.error));
      elector_->Tick(clock_.NowNs());
      AfterLeaseChange();
      again();
      return;
    }
    auto w = elector_->Observe(lease, clock_.NowNs());
    AfterLeaseChange();
    if (!w) {
      if (elector_->state() != LeaderElector::State::kLost) again();
      return;
    }
    const LeaseConfig& c = elector_->config();
    http::HttpRequest put;
    put.method = w->create ? "POST" : "PUT";
    put.url = WithFieldManager(
        api_->Url(w->create ? CollectionPath(kLeaseType, c.ns) : ObjectPath(kLeaseType, c.ns, c.name)));
    put.body = w->body;
    put.timeout_ms = c.renew_deadline_ns / 1'000'000;
    api_->Send(std::move(put), [this, again](http::HttpResponse r) {
      if (shut_down_ || r.error == "cancelled") return;
      bool ok = r.error.empty() && r.status / 100 == 2;
      std::optional<LeaseRecord> answer;
      LeaseRecord rec;
      if (ok && ParseLease(r.body, &rec).ok()) answer = rec;
      elector_->WriteResult(ok, answer, clock_.NowNs());
      AfterLeaseChange();
      if (elector_->state() != LeaderElector::State::kLost) again();
    });
  });
}

std::string K8sClusterAdapter::WithFieldManager(std::string url) const {
  if (options_.field_manager.empty()) return url;
  return recon::StrCat(url, url.find('?') == std::string::npos ? "?" : "&",
                       "fieldManager=", http::UrlEncode(options_.field_manager));
}

void K8sClusterAdapter::AfterLeaseChange() {
  bool lead = elector_->leading();
  bool was = leading_.exchange(lead);
  term_ = elector_->token();
  if (elector_->state() == LeaderElector::State::kLost) {
    bool first = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (health_.ok()) {
        health_ = absl::AbortedError(recon::StrCat("leader election lost: ", elector_->lost_reason()));
        first = true;
      }
    }
    if (first) {
      spdlog::error("k8s: leader election lost: {}", elector_->lost_reason());
      std::deque<Write> held;
      held.swap(held_);
      for (auto& w : held) Refuse(w, "leadership lost before it was sent");
      cv_.notify_all();
      Wake();
    }
    return;
  }
  if (lead && !was) {
    spdlog::info("k8s: leader lease {}/{} acquired as {} (term {})", elector_->config().ns,
                 elector_->config().name, elector_->config().identity, elector_->token());
    std::deque<Write> held;
    held.swap(held_);
    for (auto& w : held) Submit(std::move(w));
    Wake();  // Ready() changed
  }
}

void K8sClusterAdapter::PauseLeaseRenewal(bool pause) {
  loop_.Post([this, pause] { pause_renewal_ = pause; });
}

void K8sClusterAdapter::HoldWrites(bool hold) {
  loop_.Post([this, hold] {
    hold_writes_ = hold;
    if (hold) return;
    std::deque<Write> held;
    held.swap(held_);
    for (auto& w : held) Submit(std::move(w));
  });
}

}  // namespace recon::k8s
