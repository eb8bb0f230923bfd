// The adapter's writes: an action as a REST request, fenced by the lease
// term it was issued under, and its answer as an ActionResult event.
#include <string>

#include "adapters/k8s/adapter.h"
#include "adapters/k8s/objects.h"
#include "adapters/k8s/warnings.h"
#include "base/strings.h"
#include "engine/emit.h"
#include "engine/json.h"
#include "spdlog/spdlog.h"

namespace recon::k8s {

bool K8sClusterAdapter::MayWrite(int64_t term) const {
  if (!elector_) return true;
  elector_->Tick(clock_.NowNs());
  // The current term is the newest leaseTransitions seen; a write issued
  // under an older one is a deposed leader's and is not sent.
  return elector_->leading() && term == elector_->token() && term >= elector_->observed_transitions();
}

void K8sClusterAdapter::Submit(Write w) {
  bool lost = elector_ && elector_->state() == LeaderElector::State::kLost;
  if (lost) {
    Refuse(w, "leadership lost before it was sent");
    return;
  }
  if (w.term < 0 && elector_ && elector_->leading()) w.term = elector_->token();
  // Issued while standing by: sent under the term we acquire next.
  if (hold_writes_ || w.term < 0) {
    held_.push_back(std::move(w));
    return;
  }
  Send(std::move(w), 0);
}

void K8sClusterAdapter::Refuse(const Write& w, const std::string& why) {
  ++refused_;
  spdlog::warn("k8s: not sending {} {} {} (term {}): {}", w.action.verb, w.action.object.kind,
               w.action.object.name, w.term, why);
  http::HttpResponse r;
  r.error = recon::StrCat("Fenced: issued under lease term ", w.term, ", current term ",
                          elector_ ? elector_->observed_transitions() : 0, "; ", why);
  Result(w.action, r);
}

void K8sClusterAdapter::Send(Write w, int attempt) {
  const records::ActionRecord& a = w.action;
  const engine::ResourceType* type =
      a.verb == "importImage" ? &kImageStreamImportType : TypeOf(a.object.group, a.object.kind);
  if (!type) {
    http::HttpResponse r;
    r.error = recon::StrCat("NotServed: kind ", a.object.kind, " of group \"", a.object.group,
                            "\" is not among the resources the enabled domains declared");
    Result(a, r);
    return;
  }
  if (!MayWrite(w.term)) {
    AfterLeaseChange();
    Refuse(w, "the lease moved on");
    return;
  }
  http::HttpRequest req;
  const std::string& ns = a.object.ns;
  if (a.verb == "create" || a.verb == "importImage") {
    req.method = "POST";
    req.url = api_->Url(CollectionPath(*type, ns));
    auto j = engine::ParseJson(a.body);
    if (j.ok() && j->is_object()) {
      // The server refuses a create that names a resourceVersion.
      if (auto md = j->find("metadata"); md != j->end() && md->is_object()) md->erase("resourceVersion");
      req.body = engine::Dump(*j);
    } else {
      req.body = a.body;
    }
  } else if (a.verb == "update") {
    req.method = "PUT";
    req.url = api_->Url(ObjectPath(*type, ns, a.object.name));
    req.body = a.body;
  } else if (a.verb == "updateStatus") {
    req.method = "PUT";
    req.url = api_->Url(ObjectPath(*type, ns, a.object.name) + (type->status_subresource ? "/status" : ""));
    req.body = a.body;
  } else if (a.verb == "patch") {
    req.method = "PATCH";
    req.url = api_->Url(ObjectPath(*type, ns, a.object.name));
    req.content_type = "application/merge-patch+json";
    req.body = a.body;
  } else if (a.verb == "delete") {
    req.method = "DELETE";
    req.url = api_->Url(ObjectPath(*type, ns, a.object.name));
    auto j = engine::ParseJson(a.body);
    engine::Json pre = engine::Json::object();
    if (j.ok()) {
      std::string uid = engine::GetString(*j, {"metadata", "uid"});
      std::string rv = engine::GetString(*j, {"metadata", "resourceVersion"});
      if (!uid.empty()) pre["uid"] = uid;
      if (!rv.empty()) pre["resourceVersion"] = rv;
    }
    if (!pre.empty()) {
      engine::Json opts = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}, {"preconditions", pre}};
      req.body = engine::Dump(opts);
    }
  } else {
    http::HttpResponse r;
    r.error = recon::StrCat("Unsupported: verb \"", a.verb, "\" is not carried out by the k8s adapter");
    Result(a, r);
    return;
  }
  if (req.method != "DELETE") req.url = WithFieldManager(std::move(req.url));
  // Names the action in the request so a server (or an audit proxy) can tell
  // a retried action from a new one; the soak counts applications per id.
  req.headers.push_back(recon::StrCat("X-Recon-Action: ", engine::ActionId(a.cause_seq, a.index)));
  int64_t term = w.term;
  ++sent_;
  api_->Send(
      std::move(req),
      [this, w, attempt](http::HttpResponse r) {
        if (r.error == "cancelled") return;
        if (r.error == "fenced") {
          AfterLeaseChange();
          Refuse(w, "the lease moved on while it waited to be sent");
          return;
        }
        // No answer at all (connection refused, reset): try a few times
        // before reporting, as the runtime does not retry bare errors.
        if (r.status == 0 && attempt < 3 && !shut_down_) {
          int64_t delay = write_backoff_.Next(loop_.NowNs());
          loop_.After(delay / 1'000'000, [this, w, attempt] { Send(w, attempt + 1); });
          return;
        }
        Result(w.action, r);
      },
      [this, term] { return MayWrite(term); });
}

void K8sClusterAdapter::Result(const records::ActionRecord& a, const http::HttpResponse& r) {
  records::EventRecord e;
  e.time_ns = clock_.NowNs();
  e.type = records::EventType::kActionResult;
  e.action_result.action = engine::ActionId(a.cause_seq, a.index);
  e.action_result.ok = r.error.empty() && r.status / 100 == 2;
  if (r.status > 0) e.action_result.status = r.status;
  e.action_result.warnings = WarningsJson(ServerWarnings(r.headers));
  if (!e.action_result.ok) {
    e.action_result.error = !r.error.empty() && r.status == 0
                                ? (r.error.rfind("Fenced:", 0) == 0 || r.error.rfind("NotServed:", 0) == 0 ||
                                           r.error.rfind("Unsupported:", 0) == 0
                                       ? r.error
                                       : recon::StrCat("Transport: ", r.error))
                                : StatusError(r.status, r.body);
  } else if (!r.body.empty()) {
    // The written object as the server returned it: its resourceVersion is
    // how the engine tells this write's watch echo from others' changes.
    // (ObjectIdOf reads only the identity, not a whole tree per write.)
    if (auto id = ObjectIdOf(r.body); id.ok()) {
      e.action_result.resource_version = std::move(id->resource_version);
      e.action_result.uid = std::move(id->uid);
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    --pending_;
    out_.push_back(std::move(e));
  }
  cv_.notify_all();
  Wake();
}

}  // namespace recon::k8s
