#include "adapters/k8s/api.h"

#include <chrono>

#include "base/strings.h"

namespace recon::k8s {

int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string GroupVersionPath(std::string_view group, std::string_view version) {
  return group.empty() ? recon::StrCat("/api/", version) : recon::StrCat("/apis/", group, "/", version);
}

std::string CollectionPath(const engine::ResourceType& type, std::string_view ns) {
  std::string path = GroupVersionPath(type.group, type.version);
  if (type.namespaced && !ns.empty()) recon::StrAppend(&path, "/namespaces/", UrlEncode(ns));
  recon::StrAppend(&path, "/", type.plural);
  return path;
}

std::string ObjectPath(const engine::ResourceType& type, std::string_view ns, std::string_view name) {
  return recon::StrCat(CollectionPath(type, ns), "/", UrlEncode(name));
}

Api::Api(IoLoop& loop, HttpClient& http, ApiOptions options)
    : loop_(loop), http_(http), options_(options), bucket_(options.qps, options.burst, loop.NowNs()) {}

Api::~Api() { Shutdown(); }

std::string Api::Url(std::string_view path) const { return recon::StrCat(http_.config().server, path); }

void Api::Send(HttpRequest request, HttpClient::Done done, std::function<bool()> gate) {
  if (shutdown_) return;
  queue_.push_back(Pending{std::move(request), std::move(done), std::move(gate)});
  Pump();
}

void Api::Pump() {
  while (!queue_.empty() && !shutdown_) {
    int64_t wait = 0;
    if (!bucket_.TryTake(loop_.NowNs(), &wait)) {
      if (timer_ == 0) {
        timer_ = loop_.After((wait + 999'999) / 1'000'000, [this] {
          timer_ = 0;
          Pump();
        });
      }
      return;
    }
    Pending p = std::move(queue_.front());
    queue_.pop_front();
    Launch(std::move(p));
  }
}

void Api::Launch(Pending p) {
  if (p.gate && !p.gate()) {
    HttpResponse r;
    r.error = "fenced";
    p.done(std::move(r));
    return;
  }
  ++sent_;
  HttpRequest copy = p.request;  // kept for a retry
  http_.Send(std::move(copy), [this, p = std::move(p)](HttpResponse r) mutable {
    bool asks_retry = r.retry_after_s >= 0 && (r.status == 429 || r.status >= 500);
    if (asks_retry && !shutdown_ && p.attempt < options_.max_retries) {
      int64_t secs = std::min<int64_t>(r.retry_after_s, options_.max_retry_after_s);
      // Everyone waits: the server said it is overloaded.
      bucket_.PauseUntil(loop_.NowNs() + secs * 1'000'000'000);
      ++p.attempt;
      ++retried_;
      queue_.push_front(std::move(p));
      Pump();
      return;
    }
    p.done(std::move(r));
  });
}

void Api::Shutdown() {
  shutdown_ = true;
  if (timer_) loop_.Cancel(timer_);
  timer_ = 0;
  queue_.clear();
}

}  // namespace recon::k8s
