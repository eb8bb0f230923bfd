// HttpTransport's in-memory twin: requests are kept, in order, until the
// test answers them. Single-threaded: call it on the thread that sends
// (the IoLoop's, when a PacedClient drives it there).
#ifndef RECON_ADAPTERS_HTTP_FAKE_TRANSPORT_H_
#define RECON_ADAPTERS_HTTP_FAKE_TRANSPORT_H_

#include <cstdint>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/http/transport.h"

namespace recon::http {

class FakeTransport final : public HttpTransport {
 public:
  explicit FakeTransport(RestConfig config = {}) : config_(std::move(config)) {}

  uint64_t Send(HttpRequest request, Done done) override;
  void Cancel(uint64_t id) override;
  void CancelAll() override;
  void Close() override { CancelAll(); }
  size_t in_flight() const override { return open_.size(); }
  const RestConfig& config() const override { return config_; }

  // Every request sent so far, answered or not, in order.
  const std::vector<HttpRequest>& sent() const { return sent_; }
  // Answers the oldest request not answered yet; false when none is open.
  bool AnswerNext(HttpResponse response);
  // Hands `bytes` to the oldest open request's on_data as a chunk of a 200
  // body (a watch stream). When on_data refuses it, the transfer ends at
  // once with error "aborted", as HttpClient's does. False when no open
  // request streams.
  bool StreamNext(std::string_view bytes);

 private:
  RestConfig config_;
  std::vector<HttpRequest> sent_;
  std::map<uint64_t, Done> open_;  // by id, which grows: the oldest first
  uint64_t next_id_ = 1;
};

}  // namespace recon::http

#endif  // RECON_ADAPTERS_HTTP_FAKE_TRANSPORT_H_
