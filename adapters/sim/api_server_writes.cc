// Writes: the body checked against the URL (JSON, YAML-free JSON, or
// protobuf for built-in types), managed fields, then create, update, patch
// and delete through the Simulator, answered with the object as stored.
#include "absl/strings/ascii.h"
#include "adapters/sim/api_server_impl.h"
#include "adapters/sim/api_status.h"
#include "adapters/sim/http_patch.h"
#include "adapters/sim/managed_fields.h"
#include "adapters/sim/protobuf.h"
#include "base/strings.h"
#include "engine/time_format.h"

namespace recon::sim {

// The media types the real server decodes for a resource: CRDs have no
// protobuf form.
std::string ApiServer::Impl::AcceptedTypes(const Route& route) const {
  const auto& t = route.res->type;
  bool crd = opts_.api.crds != nullptr && opts_.api.crds->Find(t.group, t.version, t.kind) != nullptr;
  return crd ? "application/json, application/yaml"
             : "application/json, application/yaml, application/vnd.kubernetes.protobuf";
}

// A body error as the server answers it: 415 for a media type it cannot
// decode (Unimplemented), 400 otherwise.
HttpAnswer ApiServer::Impl::BodyError(const absl::Status& s) {
  if (absl::IsUnimplemented(s)) return StatusAnswer(415, "UnsupportedMediaType", Sv(s.message()));
  return StatusAnswer(400, "BadRequest", Sv(s.message()));
}

// Parses a write's body and checks it against the URL; fills apiVersion,
// kind, namespace (and name) the URL implies.
absl::StatusOr<Json> ApiServer::Impl::Body(const HttpRequest& req, const Route& route, bool named) {
  std::string type = req.Header("content-type");
  type = std::string(absl::StripAsciiWhitespace(type.substr(0, type.find(';'))));
  absl::StatusOr<Json> body = Json();
  if (type == "application/vnd.kubernetes.protobuf" && route.res->type.group.empty() &&
      AcceptedTypes(route).ends_with("protobuf")) {
    body = DecodeProtobufObject(req.body);
    if (absl::IsUnimplemented(body.status())) {
      return absl::UnimplementedError(
          recon::StrCat("the body of the request was in an unknown format - accepted media types include: ",
                        AcceptedTypes(route)));
    }
    if (!body.ok()) return body.status();
  } else if (!type.empty() && type != "application/json") {
    return absl::UnimplementedError(
        recon::StrCat("the body of the request was in an unknown format - accepted media types include: ",
                      AcceptedTypes(route)));
  } else {
    body = engine::ParseJson(req.body);
  }
  if (!body.ok() || !body->is_object()) {
    return absl::InvalidArgumentError(
        recon::StrCat("the request body is not a JSON object",
                      body.ok() ? "" : recon::StrCat(": ", Sv(body.status().message()))));
  }
  Json& o = *body;
  const auto& t = route.res->type;
  if (!o.contains("apiVersion")) o["apiVersion"] = t.ApiVersion();
  if (!o.contains("kind")) o["kind"] = t.kind;
  if (engine::GetString(o, {"kind"}) != t.kind || engine::GetString(o, {"apiVersion"}) != t.ApiVersion()) {
    return absl::InvalidArgumentError(recon::StrCat("the body is a ", engine::GetString(o, {"apiVersion"}),
                                                    " ", engine::GetString(o, {"kind"}), ", the URL names ",
                                                    t.ApiVersion(), " ", t.kind));
  }
  if (!o["metadata"].is_object()) o["metadata"] = Json::object();
  Json& meta = o["metadata"];
  if (t.namespaced) {
    std::string ns = engine::GetString(meta, {"namespace"});
    if (ns.empty()) {
      meta["namespace"] = route.ns;
    } else if (ns != route.ns) {
      return absl::InvalidArgumentError(
          "the namespace of the provided object does not match the namespace sent on the request");
    }
  } else {
    meta.erase("namespace");
  }
  if (named) {
    std::string name = engine::GetString(meta, {"name"});
    if (name.empty()) {
      meta["name"] = route.name;
    } else if (name != route.name) {
      return absl::InvalidArgumentError(recon::StrCat(
          "the name of the object (", name, ") does not match the name on the URL (", route.name, ")"));
    }
  }
  return body;
}

// metadata.managedFields as kube-apiserver sets them (managed_fields.h);
// the 422 an invalid fieldManager gets.
std::optional<HttpAnswer> ApiServer::Impl::TrackFields(const HttpRequest& req, const Route& route,
                                                       const Json* live, Json& next,
                                                       std::string_view options_kind) {
  auto manager = RequestFieldManager(req.Query("fieldManager"), req.Header("user-agent"), options_kind);
  if (!manager.ok()) return StatusAnswer(422, "Invalid", Sv(manager.status().message()));
  FieldManagerWrite w{*manager, route.sub, engine::FormatRfc3339Seconds(sim_->now()),
                      route.res->type.status_subresource, nullptr};
  const auto& t = route.res->type;
  const crd::Kind* k = opts_.api.crds ? opts_.api.crds->Find(t.group, t.version, t.kind) : nullptr;
  if (k != nullptr && k->schema) w.schema = &k->schema->root();
  TrackManagedFields(live, next, w);
  return std::nullopt;
}

// The object as stored after a write (the last event), or as it is.
HttpAnswer ApiServer::Impl::Written(const ApiResult& r, const Route& route, const ObjectKey& key,
                                    int status) {
  if (!r.ok) return Failed(r, route);
  HttpAnswer a;
  a.status = status;
  // One header per warning, as kube-apiserver sends them (code 299, no agent).
  for (const std::string& w : r.warnings) {
    std::string quoted = "\"";
    for (char c : w) {
      if (c == '"' || c == '\\') quoted.push_back('\\');
      quoted.push_back(c);
    }
    a.headers.emplace_back("Warning", recon::StrCat("299 - ", quoted, "\""));
  }
  if (!r.events.empty()) {
    a.body = r.events.back().body;
  } else if (const Json* o = sim_->objects().Get(key)) {
    a.body = engine::Dump(*o);
  } else {
    return NotFound(route);
  }
  return a;
}

HttpAnswer ApiServer::Impl::Create(const HttpRequest& req, const Route& route) {
  auto body = Body(req, route, false);
  if (!body.ok()) return BodyError(body.status());
  if (route.res->type.kind == "ImageStreamImport") {
    ApiResult r = sim_->RequestImport(*body);
    if (!r.ok) return Failed(r, route);
    ArmSimTimer();
    Json echo = *body;
    if (!echo.contains("status")) echo["status"] = Json::object();
    return JsonAnswer(201, echo);
  }
  if (auto refused = TrackFields(req, route, nullptr, *body, "CreateOptions")) return *refused;
  ApiResult r = sim_->Write("create", *body);
  auto key = KeyOf(*body);
  ArmSimTimer();
  if (!r.ok && r.status == 409 && r.error.rfind("AlreadyExists", 0) == 0) {
    ++stats_.already_exists;
    if (stats_.examples.size() < 10)
      stats_.examples.push_back(recon::StrCat(req.method, " ", req.path, " (action ",
                                              req.Header("x-recon-action"), "): ", r.error));
  }
  if (!r.ok) return Failed(r, route, engine::GetString(*body, {"metadata", "name"}));
  if (r.events.empty() || !key.ok()) return Written(r, route, key.ok() ? *key : ObjectKey{}, 201);
  return Written(r, route, *key, r.status == 200 ? 200 : 201);
}

HttpAnswer ApiServer::Impl::Update(const HttpRequest& req, const Route& route) {
  auto body = Body(req, route, true);
  if (!body.ok()) return BodyError(body.status());
  const Json* live = sim_->objects().Get(KeyFor(route, route.name));
  if (auto refused = TrackFields(req, route, live, *body, "UpdateOptions")) return *refused;
  ApiResult r = sim_->Write(route.sub == "status" ? "updateStatus" : "update", *body);
  ArmSimTimer();
  return Written(r, route, KeyFor(route, route.name), 200);
}

HttpAnswer ApiServer::Impl::Patch(const HttpRequest& req, const Route& route) {
  ObjectKey key = KeyFor(route, route.name);
  const Json* current = sim_->objects().Get(key);
  if (current == nullptr) return NotFound(route);
  std::string type = req.Header("content-type");
  type = type.substr(0, type.find(';'));
  auto patched = ApplyPatch(type, *current, req.body);
  if (!patched.ok()) {
    if (absl::IsUnimplemented(patched.status())) {
      return StatusAnswer(415, "UnsupportedMediaType", Sv(patched.status().message()));
    }
    return StatusAnswer(422, "Invalid", Sv(patched.status().message()));
  }
  Json& o = *patched;
  if (!o.is_object()) return StatusAnswer(422, "Invalid", "the patch did not yield an object");
  // A patch cannot move an object; a resourceVersion it sets is a precondition.
  o["apiVersion"] = route.res->type.ApiVersion();
  o["kind"] = route.res->type.kind;
  if (!o["metadata"].is_object()) o["metadata"] = Json::object();
  o["metadata"]["name"] = route.name;
  if (route.res->type.namespaced) o["metadata"]["namespace"] = route.ns;
  if (!o["metadata"].contains("resourceVersion") || o["metadata"]["resourceVersion"].is_null()) {
    o["metadata"]["resourceVersion"] = engine::Path(*current, {"metadata", "resourceVersion"});
  }
  if (auto refused = TrackFields(req, route, current, o, "PatchOptions")) return *refused;
  ApiResult r = sim_->Write(route.sub == "status" ? "updateStatus" : "update", o);
  ArmSimTimer();
  return Written(r, route, key, 200);
}

HttpAnswer ApiServer::Impl::Delete(const HttpRequest& req, const Route& route) {
  ObjectKey key = KeyFor(route, route.name);
  const Json* current = sim_->objects().Get(key);
  if (current == nullptr) return NotFound(route);
  if (!req.body.empty()) {
    auto opts = engine::ParseJson(req.body);
    if (!opts.ok() || !opts->is_object())
      return StatusAnswer(400, "BadRequest", "DeleteOptions: not a JSON object");
    const Json& pre = engine::Path(*opts, {"preconditions"});
    std::string uid = engine::GetString(pre, {"uid"}), rv = engine::GetString(pre, {"resourceVersion"});
    std::string cur_uid = engine::GetString(*current, {"metadata", "uid"});
    std::string cur_rv = engine::GetString(*current, {"metadata", "resourceVersion"});
    if (!uid.empty() && uid != cur_uid) {
      return StatusAnswer(
          409, "Conflict",
          recon::StrCat("Precondition failed: UID in precondition: ", uid, ", UID in object meta: ", cur_uid),
          Details(route));
    }
    if (!rv.empty() && rv != cur_rv) {
      return StatusAnswer(409, "Conflict",
                          recon::StrCat("Precondition failed: ResourceVersion in precondition: ", rv,
                                        ", ResourceVersion in object meta: ", cur_rv),
                          Details(route));
    }
  }
  Json copy = *current;
  ApiResult r = sim_->Write("delete", copy);
  ArmSimTimer();
  if (r.ok && r.events.empty()) return JsonAnswer(200, copy);  // already terminating
  return Written(r, route, key, 200);
}

}  // namespace recon::sim
