// Reads: get, and list with label and field selectors and paging
// (limit/continue; tokens expire with compaction).
#include <tuple>

#include "absl/strings/escaping.h"
#include "absl/strings/str_split.h"
#include "adapters/sim/api_server_impl.h"
#include "adapters/sim/api_status.h"
#include "base/strings.h"

namespace recon::sim {
namespace {

// Continue tokens: base64 of "rv\x1fepoch\x1fnamespace\x1fname" (the
// list's resourceVersion, the compaction epoch, the last item).
struct ContinueToken {
  uint64_t rv = 0, epoch = 0;
  std::string ns, name;
};

std::string EncodeContinue(const ContinueToken& t) {
  return absl::WebSafeBase64Escape(Av(recon::StrCat(t.rv, "\x1f", t.epoch, "\x1f", t.ns, "\x1f", t.name)));
}

bool DecodeContinue(const std::string& token, ContinueToken* t) {
  std::string raw;
  if (!absl::WebSafeBase64Unescape(Av(token), &raw)) return false;
  std::vector<std::string> parts = absl::StrSplit(raw, '\x1f');
  if (parts.size() != 4 || !ParseUint(parts[0], &t->rv) || !ParseUint(parts[1], &t->epoch)) return false;
  t->ns = parts[2];
  t->name = parts[3];
  return true;
}

}  // namespace

HttpAnswer ApiServer::Impl::Get(const Route& route) {
  const Json* o = sim_->objects().Get(KeyFor(route, route.name));
  if (o == nullptr) return NotFound(route);
  return JsonAnswer(200, *o);
}

absl::Status ApiServer::Impl::Selectors(const HttpRequest& req, Selector* labels, Selector* fields) const {
  auto l = Selector::ParseLabels(req.Query("labelSelector"));
  if (!l.ok()) return l.status();
  auto f = Selector::ParseFields(req.Query("fieldSelector"));
  if (!f.ok()) return f.status();
  *labels = std::move(*l);
  *fields = std::move(*f);
  return absl::OkStatus();
}

HttpAnswer ApiServer::Impl::List(const HttpRequest& req, const Route& route) {
  Selector labels, fields;
  if (auto s = Selectors(req, &labels, &fields); !s.ok())
    return StatusAnswer(400, "BadRequest", Sv(s.message()));
  uint64_t limit = 0;
  if (std::string l = req.Query("limit"); !l.empty() && !ParseUint(l, &limit)) {
    return StatusAnswer(400, "BadRequest", recon::StrCat("limit: not a number: \"", l, "\""));
  }
  ContinueToken from{sim_->objects().resource_version(), epoch_, "", ""};
  bool continuing = false;
  if (std::string token = req.Query("continue"); !token.empty()) {
    if (!DecodeContinue(token, &from)) {
      return StatusAnswer(400, "BadRequest", "continue key is not valid: illegal base64 data");
    }
    if (from.epoch != epoch_ || from.rv < floor_rv_) {
      return StatusAnswer(410, "Expired",
                          "The provided continue parameter is too old to display a consistent list result. "
                          "You can start a new list without the continue parameter.");
    }
    continuing = true;
  }
  std::string items;
  uint64_t count = 0, remaining = 0;
  std::string last_ns, last_name;
  bool more = false;
  ForEach(route, [&](const ObjectKey& k, const Json& o) {
    if (continuing && std::tie(k.ns, k.name) <= std::tie(from.ns, from.name)) return true;
    if (!labels.Matches(o) || !fields.Matches(o)) return true;
    if (limit > 0 && count >= limit) {
      more = true;
      ++remaining;
      return true;
    }
    if (count++ > 0) items += ",";
    if (route.res->builtin && (o.contains("apiVersion") || o.contains("kind"))) {
      Json item = o;  // kube-apiserver's lists of its own kinds: no apiVersion/kind per item
      item.erase("apiVersion");
      item.erase("kind");
      items += engine::Dump(item);
    } else {
      items += engine::Dump(o);
    }
    last_ns = k.ns;
    last_name = k.name;
    return true;
  });
  Json meta = {{"resourceVersion", std::to_string(from.rv)}};
  if (more) {
    meta["continue"] = EncodeContinue(ContinueToken{from.rv, epoch_, last_ns, last_name});
    meta["remainingItemCount"] = remaining;
  }
  HttpAnswer a;
  a.body = recon::StrCat("{\"kind\":\"", route.res->type.kind, "List\",\"apiVersion\":\"",
                         route.res->type.ApiVersion(), "\",\"metadata\":", engine::Dump(meta), ",\"items\":[",
                         items, "]}");
  return a;
}

}  // namespace recon::sim
