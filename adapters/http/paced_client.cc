#include "adapters/http/paced_client.h"

#include <chrono>

#include "base/strings.h"

namespace recon::http {

int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

PacedClient::PacedClient(IoLoop& loop, HttpTransport& http, PaceOptions options)
    : loop_(loop), http_(http), options_(options), bucket_(options.qps, options.burst, loop.NowNs()) {}

PacedClient::~PacedClient() { Shutdown(); }

std::string PacedClient::Url(std::string_view path) const {
  return recon::StrCat(http_.config().server, path);
}

void PacedClient::Send(HttpRequest request, HttpTransport::Done done, std::function<bool()> gate) {
  if (shutdown_) return;
  queue_.push_back(Pending{std::move(request), std::move(done), std::move(gate)});
  Pump();
}

void PacedClient::Pump() {
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

void PacedClient::Launch(Pending p) {
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

void PacedClient::Shutdown() {
  shutdown_ = true;
  if (timer_) loop_.Cancel(timer_);
  timer_ = 0;
  queue_.clear();
}

}  // namespace recon::http
