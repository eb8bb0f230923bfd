// Fault controls (dropped watches, compaction, restarts, outages) and the
// failures injected into answers: FailNext's rules and
// ServeOptions::write_faults.
#include <algorithm>

#include "adapters/sim/api_server_impl.h"
#include "adapters/sim/api_status.h"
#include "base/strings.h"

namespace recon::sim {

void ApiServer::Impl::DropWatches() {
  std::vector<ConnId> ids;
  for (const auto& [id, w] : watches_) ids.push_back(id);
  for (ConnId id : ids) http_->Abort(id);
  stats_.watch_dropped += ids.size();
  watches_.clear();
}

void ApiServer::Impl::Compact() {
  ++epoch_;
  history_.clear();
  floor_rv_ = sim_->objects().resource_version();
}

void ApiServer::Impl::FailNext(int count, int status, int retry_after_s, std::string verb) {
  fail_next_.push_back(FailRule{count, status, retry_after_s, std::move(verb)});
}

void ApiServer::Impl::Restart() {
  http_->AbortAll();
  watches_.clear();
  Compact();
}

void ApiServer::Impl::Unavailable(int64_t real_ms) {
  unavailable_until_ms_ = static_cast<int64_t>(uv_now(&loop_)) + std::max<int64_t>(real_ms, 0);
  ++stats_.outages;
  DropWatches();
}

// FailNext's first matching rule, else a write fault drawn from
// ServeOptions::write_faults; nullopt when the request goes through.
std::optional<HttpAnswer> ApiServer::Impl::InjectedAnswer(const Route& route) {
  for (auto it = fail_next_.begin(); it != fail_next_.end(); ++it) {
    if (!it->verb.empty() && it->verb != route.verb) continue;
    ++stats_.injected;
    FailRule rule = *it;
    if (--it->count <= 0) fail_next_.erase(it);
    HttpAnswer a = StatusAnswer(rule.status, ReasonFor(rule.status),
                                recon::StrCat("injected failure (", rule.status, ")"));
    if (rule.retry_after_s > 0) {
      a.headers.emplace_back("Retry-After", std::to_string(rule.retry_after_s));
      a.body = engine::Dump(StatusJson(rule.status, ReasonFor(rule.status),
                                       recon::StrCat("injected failure (", rule.status, ")"),
                                       Json{{"retryAfterSeconds", rule.retry_after_s}}));
    }
    return a;
  }
  // ServeOptions::write_faults: a seeded share of writes fails.
  if (opts_.write_faults > 0 &&
      (route.verb == "create" || route.verb == "update" || route.verb == "patch" || route.verb == "delete")) {
    if (fault_rng_.Uniform() < opts_.write_faults) {
      ++stats_.injected;
      bool may_conflict = route.verb == "update" || route.verb == "patch";
      uint64_t pick = fault_rng_.Next() % (may_conflict ? 3 : 2);
      int status = pick == 0 ? 500 : pick == 1 ? 429 : 409;
      HttpAnswer a =
          StatusAnswer(status, ReasonFor(status), recon::StrCat("injected failure (", status, ")"));
      if (status == 429) a.headers.emplace_back("Retry-After", "1");
      return a;
    }
  }
  return std::nullopt;
}

}  // namespace recon::sim
