// Watches: the bounded history of changes, a watch's start (the current
// state, or the history after a resourceVersion, or 410), fan-out of each
// change to the open watches (with the dropWatch and delayWatch faults),
// bookmarks and timeouts.
#include <uv.h>

#include <algorithm>

#include "adapters/sim/api_server_impl.h"
#include "adapters/sim/api_status.h"
#include "base/strings.h"

namespace recon::sim {
namespace {

uint64_t RvOf(const Json& object) {
  std::string rv = engine::GetString(object, {"metadata", "resourceVersion"});
  uint64_t n = 0;
  for (char c : rv) {
    if (c < '0' || c > '9') return 0;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n;
}

}  // namespace

void ApiServer::Impl::OnChanges(std::vector<records::EventRecord> events) {
  for (auto& e : events) {
    if (e.type != records::EventType::kAdded && e.type != records::EventType::kModified &&
        e.type != records::EventType::kDeleted)
      continue;
    Change c;
    c.type = e.type;
    c.group = e.object.group;
    c.kind = e.object.kind;
    c.ns = e.object.ns;
    auto parsed = engine::ParseJson(e.body);
    if (parsed.ok()) c.object = std::move(*parsed);
    c.rv = RvOf(c.object);
    // ARM objects carry no resourceVersion: they sort at the current one.
    if (c.rv == 0) c.rv = sim_->objects().resource_version();
    c.body = std::move(e.body);
    ObjectKey key{c.group, c.kind, c.ns, e.object.name};
    auto known = metadata_.find(key);
    if (known != metadata_.end()) c.previous = std::move(known->second);
    if (c.type == records::EventType::kDeleted) {
      if (known != metadata_.end()) metadata_.erase(known);
    } else {
      metadata_[key] = MetadataOf(c.object);
    }
    history_.push_back(std::move(c));
    if (history_.size() > opts_.history) {
      floor_rv_ = std::max(floor_rv_, history_.front().rv);
      history_.pop_front();
    }
    Fanout(history_.back());
  }
}

Json ApiServer::Impl::MetadataOf(const Json& object) {
  return Json{{"metadata", engine::Path(object, {"metadata"})}};
}

// The event type a watch sees for a change, or nullptr. As the API server
// does for selectors: an object that starts matching is ADDED, one that
// stops matching is DELETED.
const char* ApiServer::Impl::EventFor(const Watch& w, const Change& c) {
  if (c.group != w.res->type.group || c.kind != w.res->type.kind) return nullptr;
  if (!w.ns.empty() && c.ns != w.ns) return nullptr;
  bool now = w.labels.Matches(c.object) && w.fields.Matches(c.object);
  bool before = !c.previous.is_null() && w.labels.Matches(c.previous) && w.fields.Matches(c.previous);
  switch (c.type) {
    case records::EventType::kAdded:
      return now ? "ADDED" : nullptr;
    case records::EventType::kDeleted:
      return now || before ? "DELETED" : nullptr;
    default:
      if (now) return before ? "MODIFIED" : "ADDED";
      return before ? "DELETED" : nullptr;
  }
}

std::string ApiServer::Impl::EventLine(const char* type, std::string_view body) {
  return recon::StrCat("{\"type\":\"", type, "\",\"object\":", body, "}\n");
}

void ApiServer::Impl::Fanout(const Change& c) {
  std::vector<ConnId> ids;
  for (const auto& [id, w] : watches_) ids.push_back(id);
  for (ConnId id : ids) {
    auto it = watches_.find(id);
    if (it == watches_.end() || c.rv <= it->second.rv) continue;
    const char* type = EventFor(it->second, c);
    if (type == nullptr) continue;
    // dropWatch: the stream ends before this event; the client resumes
    // from its last resourceVersion and gets it from the history.
    if (scenario_.faults.drop_watch > 0 && drop_rng_.Uniform() < scenario_.faults.drop_watch) {
      ++stats_.watch_dropped;
      watches_.erase(it);
      http_->EndStream(id);
      continue;
    }
    it->second.rv = c.rv;
    Watch& w = it->second;
    ++stats_.watch_events;
    if (w.held.empty() && scenario_.faults.delay_watch > 0 &&
        drop_rng_.Uniform() < scenario_.faults.delay_watch) {
      ++stats_.watch_delayed;
      double ms = static_cast<double>(scenario_.faults.delay_ns) / 1e6 / opts_.speed;
      w.held_until_ms = static_cast<int64_t>(uv_now(&loop_)) + std::max<int64_t>(1, static_cast<int64_t>(ms));
    }
    if (!w.held.empty() || w.held_until_ms > static_cast<int64_t>(uv_now(&loop_))) {
      w.held.push_back(EventLine(type, c.body));
      continue;
    }
    http_->Send(id, EventLine(type, c.body));
  }
}

void ApiServer::Impl::Tick() {
  uint64_t now = uv_now(&loop_);
  std::vector<ConnId> ended;
  for (auto& [id, w] : watches_) {
    if (!w.held.empty() && static_cast<int64_t>(now) >= w.held_until_ms) {
      for (const auto& line : w.held) http_->Send(id, line);
      w.held.clear();
    }
    if (w.deadline_ms != 0 && static_cast<int64_t>(now) >= w.deadline_ms) {
      ended.push_back(id);
      continue;
    }
    if (w.bookmarks && now - w.last_bookmark_ms >= static_cast<uint64_t>(opts_.bookmark_interval_ms)) {
      w.last_bookmark_ms = now;
      w.rv = std::max(w.rv, sim_->objects().resource_version());
      Json b = {{"kind", w.res->type.kind},
                {"apiVersion", w.res->type.ApiVersion()},
                {"metadata", {{"resourceVersion", std::to_string(w.rv)}}}};
      // Behind held events, not ahead of them: a bookmark promises the
      // client everything up to its resourceVersion.
      if (w.held.empty()) {
        http_->Send(id, EventLine("BOOKMARK", engine::Dump(b)));
      } else {
        w.held.push_back(EventLine("BOOKMARK", engine::Dump(b)));
      }
    }
  }
  for (ConnId id : ended) {
    watches_.erase(id);
    http_->EndStream(id);
  }
}

HttpAnswer ApiServer::Impl::StartWatch(const HttpRequest& req, const Route& route, ConnId conn) {
  Watch w;
  w.res = route.res;
  w.ns = route.ns;
  if (auto s = Selectors(req, &w.labels, &w.fields); !s.ok())
    return StatusAnswer(400, "BadRequest", Sv(s.message()));
  w.bookmarks = IsTrue(req.Query("allowWatchBookmarks"));
  w.last_bookmark_ms = uv_now(&loop_);
  if (std::string t = req.Query("timeoutSeconds"); !t.empty()) {
    uint64_t secs = 0;
    if (!ParseUint(t, &secs))
      return StatusAnswer(400, "BadRequest", recon::StrCat("timeoutSeconds: \"", t, "\""));
    w.deadline_ms = static_cast<int64_t>(uv_now(&loop_) + secs * 1000);
  }
  std::string rv_text = req.Query("resourceVersion");
  uint64_t from = 0;
  bool initial = rv_text.empty() || rv_text == "0";
  if (!initial && !ParseUint(rv_text, &from)) {
    return StatusAnswer(400, "BadRequest", recon::StrCat("resourceVersion: not a number: \"", rv_text, "\""));
  }
  HttpAnswer a;
  a.stream = true;
  uint64_t now_rv = sim_->objects().resource_version();
  if (!initial && from < floor_rv_) {
    // As the API server does for a watch: 200, one ERROR event, the end.
    a.after = [this, conn, from]() {
      Json st = StatusJson(410, "Expired",
                           recon::StrCat("too old resource version: ", from, " (", floor_rv_, ")"), Json());
      http_->Send(conn, EventLine("ERROR", engine::Dump(st)));
      http_->EndStream(conn);
    };
    return a;
  }
  a.after = [this, conn, w = std::move(w), initial, from, now_rv, route]() mutable {
    if (initial) {
      ForEach(route, [&](const ObjectKey&, const Json& o) {
        if (w.labels.Matches(o) && w.fields.Matches(o))
          http_->Send(conn, EventLine("ADDED", engine::Dump(o)));
        return true;
      });
      w.rv = now_rv;
    } else {
      // A resourceVersion from the future counts as now.
      w.rv = std::min(from, now_rv);
      for (const Change& c : history_) {
        const char* type = c.rv > w.rv ? EventFor(w, c) : nullptr;
        if (type != nullptr) {
          http_->Send(conn, EventLine(type, c.body));
          w.rv = c.rv;
        }
      }
    }
    watches_[conn] = std::move(w);
  };
  return a;
}

}  // namespace recon::sim
