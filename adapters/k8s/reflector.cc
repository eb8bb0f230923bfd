#include "adapters/k8s/reflector.h"

#include "adapters/k8s/objects.h"
#include "base/strings.h"
#include "spdlog/spdlog.h"

namespace recon::k8s {

Reflector::Reflector(http::IoLoop& loop, http::PacedClient& api, engine::ResourceType type,
                     ReflectorOptions options, Rng& rng, const runtime::TimeSource& clock, Deliver deliver)
    : loop_(loop),
      api_(api),
      type_(std::move(type)),
      options_(options),
      rng_(rng),
      backoff_(rng, options.backoff),
      clock_(clock),
      deliver_(std::move(deliver)) {}

std::string Reflector::Name() const {
  return type_.group.empty() ? type_.plural : recon::StrCat(type_.plural, ".", type_.group);
}

std::string Reflector::resource_version() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rv_copy_;
}

std::string Reflector::last_error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_error_;
}

void Reflector::SetError(const std::string& e) {
  std::lock_guard<std::mutex> lock(mu_);
  last_error_ = e;
}

void Reflector::Start() { List(); }

void Reflector::Stop() { stopped_ = true; }

void Reflector::List() {
  if (stopped_) return;
  ++stats_.lists;
  ListPage("", std::make_shared<std::vector<ListedObject>>());
}

void Reflector::ListPage(std::string continue_token, std::shared_ptr<std::vector<ListedObject>> items) {
  if (stopped_) return;
  // No resourceVersion: a consistent read from etcd (client-go's relist
  // after 410), paginated.
  std::string path = recon::StrCat(CollectionPath(type_, ""), "?limit=", options_.page_size);
  if (!continue_token.empty()) recon::StrAppend(&path, "&continue=", http::UrlEncode(continue_token));
  http::HttpRequest req;
  req.url = api_.Url(path);
  req.timeout_ms = 60'000;
  api_.Send(std::move(req), [this, items](http::HttpResponse r) {
    if (stopped_ || r.error == "cancelled") return;
    if (!r.error.empty() || r.status != 200) {
      std::string why =
          r.error.empty() ? StatusError(r.status, r.body) : recon::StrCat("transport: ", r.error);
      if (GaveUp(r, recon::StrCat("list ", Name(), ": ", why))) return;
      // 410 on a continue token: the snapshot expired; start the list over.
      Retry(true, recon::StrCat("list ", Name(), ": ", why));
      return;
    }
    unauthorized_ = 0;
    auto page = ParseListPage(r.body, type_);
    if (!page.ok()) {
      Retry(true, std::string(page.status().message()));
      return;
    }
    ++stats_.pages;
    for (auto& o : page->items) items->push_back(std::move(o));
    if (!page->continue_token.empty()) {
      ListPage(page->continue_token, items);
      return;
    }
    std::vector<records::EventRecord> unchanged;
    auto events = DiffRelist(cache_, std::move(*items), clock_.NowNs(), seen_ ? &unchanged : nullptr);
    if (!unchanged.empty()) seen_(std::move(unchanged));
    rv_ = page->resource_version;
    {
      std::lock_guard<std::mutex> lock(mu_);
      rv_copy_ = rv_;
    }
    stats_.events += events.size();
    // Delivered before `synced` flips, so Start() sees the whole first list.
    deliver_(std::move(events));
    synced_ = true;
    deliver_({});  // nothing to deliver: tells a waiting Start() to look again
    relist_needed_ = false;
    Watch();
  });
}

void Reflector::Watch() {
  if (stopped_) return;
  ++stats_.watches;
  int64_t timeout_s = rng_.Between(options_.min_watch_timeout_s, 2 * options_.min_watch_timeout_s);
  std::string path = recon::StrCat(CollectionPath(type_, ""),
                                   "?watch=1&allowWatchBookmarks=true&resourceVersion=", http::UrlEncode(rv_),
                                   "&timeoutSeconds=", timeout_s);
  auto parser = std::make_shared<WatchStreamParser>();
  auto failure = std::make_shared<std::string>();
  http::HttpRequest req;
  req.url = api_.Url(path);
  // The server ends the watch after timeoutSeconds; the client's own limit
  // is a safety net a little beyond it.
  req.timeout_ms = (timeout_s + 30) * 1000;
  req.on_data = [this, parser, failure](std::string_view bytes) {
    if (stopped_) return false;
    auto events = parser->Feed(bytes);
    if (!events.ok()) {
      *failure = std::string(events.status().message());
      return false;
    }
    bool stop = false;
    for (const auto& ev : *events) {
      OnWatchEvent(ev, &stop);
      if (stop) return false;
    }
    return true;
  };
  api_.Send(std::move(req), [this, failure](http::HttpResponse r) {
    if (stopped_ || r.error == "cancelled") return;
    if (relist_needed_) {
      Retry(true, recon::StrCat("watch ", Name(), ": resourceVersion ", rv_, " is gone (410)"));
      return;
    }
    if (!failure->empty()) {
      Retry(false, recon::StrCat("watch ", Name(), ": ", *failure));
      return;
    }
    if (r.status == 410) {
      Retry(true, recon::StrCat("watch ", Name(), ": 410 Gone"));
      return;
    }
    if (!r.error.empty() || r.status != 200) {
      std::string why = recon::StrCat(
          "watch ", Name(), ": ",
          r.error.empty() ? StatusError(r.status, r.body) : recon::StrCat("transport: ", r.error));
      if (GaveUp(r, why)) return;
      Retry(false, why);
      return;
    }
    unauthorized_ = 0;
    // The server closed the watch (timeoutSeconds): resume from rv_.
    Watch();
  });
}

void Reflector::OnWatchEvent(const WatchEvent& ev, bool* stop) {
  if (ev.type == "ERROR") {
    int code = StatusCode(ev.object);
    if (code == 410)
      relist_needed_ = true;
    else
      SetError(recon::StrCat("watch ", Name(), ": ERROR event ", StatusError(code, ev.object)));
    *stop = true;
    return;
  }
  auto id = ObjectIdOf(ev.object);
  if (ev.type == "BOOKMARK") {
    // A bookmark carries only metadata.resourceVersion (no name).
    std::string_view rv;
    size_t at = ev.object.find("\"resourceVersion\":\"");
    if (at != std::string::npos) {
      size_t start = at + 19, end = ev.object.find('"', start);
      if (end != std::string::npos) rv = std::string_view(ev.object).substr(start, end - start);
    }
    if (!rv.empty()) {
      rv_ = rv;
      ++stats_.bookmarks;
      std::lock_guard<std::mutex> lock(mu_);
      rv_copy_ = rv_;
    }
    return;
  }
  if (!id.ok()) {
    SetError(recon::StrCat("watch ", Name(), ": ", Sv(id.status().message())));
    *stop = true;
    return;
  }
  ListedObject obj{std::move(*id), ev.object};
  auto key = std::make_pair(obj.id.ns, obj.id.name);
  bool known = cache_.count(key) > 0;
  records::EventType type = ev.type == "DELETED" ? records::EventType::kDeleted
                            : known              ? records::EventType::kModified
                                                 : records::EventType::kAdded;
  if (!obj.id.resource_version.empty()) {
    rv_ = obj.id.resource_version;
    std::lock_guard<std::mutex> lock(mu_);
    rv_copy_ = rv_;
  }
  if (!ApplyToCache(cache_, type, obj)) return;
  ++stats_.events;
  std::vector<records::EventRecord> out;
  out.push_back(MakeEvent(type, obj, clock_.NowNs()));
  deliver_(std::move(out));
}

bool Reflector::GaveUp(const http::HttpResponse& r, const std::string& why) {
  if (r.status != 401) {
    unauthorized_ = 0;
    return false;
  }
  if (++unauthorized_ < kMaxUnauthorized || !fatal_) return false;
  SetError(why);
  stopped_ = true;
  fatal_(recon::StrCat("credentials rejected (HTTP 401) ", unauthorized_, " times in a row: ", why));
  return true;
}

void Reflector::Retry(bool relist, const std::string& why) {
  if (stopped_) return;
  ++stats_.errors;
  SetError(why);
  int64_t delay_ns = backoff_.Next(loop_.NowNs());
  spdlog::warn("k8s: {}; {} in {} ms", why, relist ? "relisting" : "watching again", delay_ns / 1'000'000);
  if (relist) ++stats_.relists;
  loop_.After(delay_ns / 1'000'000, [this, relist] {
    if (relist)
      List();
    else
      Watch();
  });
}

}  // namespace recon::k8s
