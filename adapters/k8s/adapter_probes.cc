// The adapter's probes and polled Content sources, answered as events.
#include <algorithm>

#include "adapters/k8s/adapter.h"
#include "adapters/k8s/objects.h"
#include "base/strings.h"
#include "engine/json.h"
#include "spdlog/spdlog.h"

namespace recon::k8s {

void K8sClusterAdapter::Probe(records::ActionRecord a) {
  http::HttpRequest req;
  req.timeout_ms = options_.probe_timeout_ms;
  req.connect_timeout_ms = std::min<int64_t>(req.connect_timeout_ms, options_.probe_timeout_ms);
  bool via = !options_.probe_via.empty();
  req.cluster = via;  // the sim's probe endpoint is the API server: same credentials
  req.url = via ? recon::StrCat(options_.probe_via, "/recon-sim/v1/probe?name=", http::UrlEncode(a.probe),
                                "&target=", http::UrlEncode(a.target))
                : a.target;
  http_->Send(std::move(req), [this, a, via](http::HttpResponse r) {
    if (r.error == "cancelled") return;
    records::EventRecord e;
    e.time_ns = clock_.NowNs();
    e.type = records::EventType::kProbe;
    e.probe.name = a.probe;
    e.probe.target = a.target;
    if (via) {
      // The sim answers {"ok":..,"status":..,"detail":..,"data":..}.
      auto j = engine::ParseJson(r.body);
      if (r.status == 200 && j.ok() && j->is_object()) {
        const engine::Json& ok = engine::Path(*j, {"ok"});
        e.probe.ok = ok.is_boolean() && ok.get<bool>();
        const engine::Json& st = engine::Path(*j, {"status"});
        if (st.is_number_integer()) e.probe.status = st.get<int32_t>();
        e.probe.detail = engine::GetString(*j, {"detail"});
        const engine::Json& data = engine::Path(*j, {"data"});
        if (!data.is_null()) e.probe.data = engine::Dump(data);
      } else {
        e.probe.detail = r.error.empty() ? StatusError(r.status, r.body) : r.error;
      }
    } else {
      // Any HTTP answer means the target was reached.
      e.probe.ok = r.error.empty() && r.status > 0;
      if (r.status > 0) e.probe.status = r.status;
      e.probe.detail = r.error;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      --pending_;
      out_.push_back(std::move(e));
    }
    Wake();
  });
}

void K8sClusterAdapter::PollContent() {
  if (shut_down_) return;
  std::vector<records::EventRecord> events;
  for (const auto& src : options_.content_sources) {
    auto files = src.load();
    // Unreadable now (being replaced, say): the last content stands.
    if (!files.ok()) continue;
    std::string digest = records::ContentDigest(*files);
    std::string& last = content_digests_[src.name];
    if (digest == last) continue;
    last = digest;
    records::EventRecord c;
    c.time_ns = clock_.NowNs();
    c.type = records::EventType::kContent;
    c.content_name = src.name;
    c.content_digest = std::move(digest);
    c.content_files = std::move(*files);
    events.push_back(std::move(c));
  }
  if (!events.empty()) Deliver(std::move(events));
  loop_.After(options_.content_poll_ms, [this] { PollContent(); });
}

}  // namespace recon::k8s
