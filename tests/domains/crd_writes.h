// What a real kube-apiserver serving the real CRDs would say about a
// domain's writes: every create/update/updateStatus of a kind with a CRD
// in crd::Registry::Builtin() is admitted (validated, pruned, defaulted)
// the way the server does it, and status-subresource and resourceVersion
// rules are checked. Shared by tests/domains/<domain>/crd_writes_test.cc.
#ifndef RECON_TESTS_DOMAINS_CRD_WRITES_H_
#define RECON_TESTS_DOMAINS_CRD_WRITES_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/strings.h"
#include "crd/registry.h"
#include "engine/json.h"
#include "records/record.h"

namespace recon::testing {

struct CrdWriteReport {
  std::vector<std::string> problems;    // one line each, naming the action
  std::map<std::string, int> admitted;  // "<verb> <Kind>" → writes admitted
  std::string Problems() const {
    std::string out;
    for (const auto& p : problems) recon::StrAppend(&out, p, "\n");
    return out;
  }
};

// The spec a /status update is validated with: the stored object's (the
// server copies everything but .status from it), null if unknown.
using StoredSpec = std::function<engine::Json(const records::ActionRecord&)>;

inline void CheckCrdWrites(const crd::Registry& registry, const std::vector<records::ActionRecord>& actions,
                           const StoredSpec& stored_spec, bool require_resource_version,
                           CrdWriteReport* report) {
  for (const auto& a : actions) {
    if (a.verb != "create" && a.verb != "update" && a.verb != "updateStatus") continue;
    auto parsed = engine::ParseJson(a.body);
    std::string id = recon::StrCat(a.domain, " ", a.verb, " ", a.object.kind, " ", a.object.ns,
                                   a.object.ns.empty() ? "" : "/", a.object.name, " (action ", a.cause_seq,
                                   ".", a.index, ")");
    if (!parsed.ok()) {
      report->problems.push_back(recon::StrCat(id, ": body is not JSON"));
      continue;
    }
    const engine::Json& body = *parsed;
    const std::string ns = engine::GetString(body, {"metadata", "namespace"});
    id = recon::StrCat(a.domain, a.domain.empty() ? "" : " ", a.verb, " ", engine::GetString(body, {"kind"}),
                       " ", ns, ns.empty() ? "" : "/", engine::GetString(body, {"metadata", "name"}),
                       " (action ", a.cause_seq, ".", a.index, ")");
    const std::string api = engine::GetString(body, {"apiVersion"});
    const size_t slash = api.find('/');
    const std::string group = slash == std::string::npos ? "" : api.substr(0, slash);
    const std::string version = slash == std::string::npos ? api : api.substr(slash + 1);
    const crd::Kind* kind = registry.Find(group, version, engine::GetString(body, {"kind"}));
    if (kind == nullptr) continue;  // a built-in or schemaless kind
    ++report->admitted[recon::StrCat(a.verb, " ", kind->kind)];

    if (kind->status_subresource && a.verb != "updateStatus" && body.contains("status")) {
      report->problems.push_back(
          recon::StrCat(id, ": carries .status, which the server ignores (status subresource)"));
    }
    if (require_resource_version && a.verb != "create" &&
        engine::GetString(body, {"metadata", "resourceVersion"}).empty()) {
      report->problems.push_back(recon::StrCat(
          id, ": metadata.resourceVersion: Invalid value: 0x0: must be specified for an update"));
    }
    engine::Json object = body;
    if (a.verb == "updateStatus" && kind->status_subresource) {
      // The server validates the stored object with this status put in.
      object = engine::Json{
          {"apiVersion", body["apiVersion"]}, {"kind", body["kind"]}, {"metadata", body["metadata"]}};
      engine::Json spec = stored_spec(a);
      if (!spec.is_null()) object["spec"] = std::move(spec);
      if (body.contains("status")) object["status"] = body["status"];
    }
    engine::Json admitted = object;
    for (const auto& e : registry.Admit(*kind, admitted, /*old=*/nullptr)) {
      // A /status update is refused only for what it can change: the
      // stored spec is not this write's (a scenario log may hold one a
      // real server would have refused).
      if (a.verb == "updateStatus" && e.field.rfind("status", 0) != 0 && e.field.rfind("metadata", 0) != 0)
        continue;
      report->problems.push_back(recon::StrCat(id, ": ", e.ToString()));
    }
    // Nothing recon writes is pruned or defaulted away (the domain READMEs
    // say so): what the server stores is what was sent.
    if (a.verb == "updateStatus") {  // only the status is this write's
      admitted["spec"] = object.contains("spec") ? object["spec"] : engine::Json();
      if (admitted["spec"].is_null()) admitted.erase("spec");
    }
    if (admitted != object) {
      report->problems.push_back(recon::StrCat(id, ": the server would store ", engine::Dump(admitted),
                                               " for ", engine::Dump(object)));
    }
  }
}

}  // namespace recon::testing

#endif  // RECON_TESTS_DOMAINS_CRD_WRITES_H_
