#include "adapters/http/fake_transport.h"

namespace recon::http {

uint64_t FakeTransport::Send(HttpRequest request, Done done) {
  sent_.push_back(std::move(request));
  uint64_t id = next_id_++;
  open_.emplace(id, std::move(done));
  return id;
}

void FakeTransport::Cancel(uint64_t id) {
  auto it = open_.find(id);
  if (it == open_.end()) return;
  Done done = std::move(it->second);
  open_.erase(it);
  HttpResponse r;
  r.error = "cancelled";
  done(std::move(r));
}

void FakeTransport::CancelAll() {
  while (!open_.empty()) Cancel(open_.begin()->first);
}

bool FakeTransport::AnswerNext(HttpResponse response) {
  if (open_.empty()) return false;
  auto it = open_.begin();
  Done done = std::move(it->second);
  open_.erase(it);
  done(std::move(response));
  return true;
}

bool FakeTransport::StreamNext(std::string_view bytes) {
  if (open_.empty()) return false;
  auto it = open_.begin();
  // A copy: on_data may send, and sent_ grow under it. Ids count from 1.
  uint64_t id = it->first;
  auto on_data = sent_[id - 1].on_data;
  if (!on_data) return false;
  if (on_data(bytes)) return true;
  it = open_.find(id);
  if (it == open_.end()) return true;
  Done done = std::move(it->second);
  open_.erase(it);
  HttpResponse r;
  r.status = 200;
  r.error = "aborted";
  done(std::move(r));
  return true;
}

}  // namespace recon::http
