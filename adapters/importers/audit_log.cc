#include "adapters/importers/audit_log.h"

#include <simdjson.h>

#include <algorithm>
#include <istream>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "absl/status/status.h"
#include "base/strings.h"
#include "engine/json.h"
#include "engine/jsonl_reader.h"
#include "engine/time_format.h"

namespace recon::adapters::importers {
namespace {

namespace od = simdjson::ondemand;
using engine::Json;
using records::EventRecord;
using records::EventType;

constexpr std::string_view kAuditApiVersion = "audit.k8s.io/v1";

// Skip reasons, as the cli prints them after their counts.
constexpr char kNotComplete[] = "not at stage ResponseComplete (only that stage carries the answer)";
constexpr char kReads[] = "reads (get, list, watch)";
constexpr char kOtherVerbs[] = "other verbs (not create, update, patch, delete, deletecollection)";
constexpr char kNonResource[] = "writes to non-resource URLs";
constexpr char kUndeclared[] = "writes to kinds no domain declares (--all-kinds keeps them)";
constexpr char kNoBody[] =
    "without a responseObject (level Metadata or Request: the policy logged no answer)";
constexpr char kApiTruncated[] =
    "truncated by the apiserver (audit.k8s.io/truncated: the bodies were dropped)";
constexpr char kLastLineCut[] = "truncated last line (no newline: the log was copied while being written)";
constexpr char kOtherSubresource[] = "writes to subresources whose answer is not the object (e.g. scale)";
constexpr char kStatusCollection[] =
    "deletecollections answered with a Status (the deleted objects are not named)";
constexpr char kUnknownKind[] = "deletes of a resource whose kind the log never names";
constexpr char kRepeated[] = "repeated auditIDs (the same request in two apiservers' logs)";
constexpr char kDryRun[] = "dry runs (dryRun=All: nothing was stored)";
constexpr char kNotStored[] =
    "answers without a resourceVersion (reviews and other objects that are never stored)";

// The top-level fields the decoding reads; the rest of a line is skipped.
constexpr std::string_view kHeaderFields[] = {
    "kind",       "apiVersion", "level",          "auditID",        "stage",          "verb",
    "requestURI", "objectRef",  "responseStatus", "responseObject", "stageTimestamp", "annotations"};

std::string FailedReason(int64_t code) { return recon::StrCat("failed writes (HTTP ", code, ")"); }

// A write whose answer embeds another object: creating an ImageStreamImport
// with spec.import updates the ImageStream inside openshift-apiserver (no
// audit line of its own); the answer's status.import is that stream.
struct Embedded {
  std::string_view group, resource, kind, plural;
};
constexpr Embedded kEmbedded[] = {
    {"image.openshift.io", "imagestreamimports", "ImageStream", "imagestreams"},
};

struct Pending {
  int64_t time_ns = 0;
  std::string audit_id;
  size_t index = 0;  // among the events of one line (deletecollection)
  EventRecord event;
  // A delete answered with a Status: the kind is resolved once every line
  // has been read (another line may name it).
  bool needs_kind = false;
  std::string group, plural;
};

bool IsObject(const Json& o) { return o.is_object() && o.contains("metadata"); }

// A deleted object that still exists: finalizers left (a Namespace's are
// in spec until /finalize empties them), or a grace period running (a Pod
// until its kubelet confirms).
bool DeletionPending(const Json& o) {
  for (const Json* f :
       {&engine::Path(o, {"metadata", "finalizers"}), &engine::Path(o, {"spec", "finalizers"})})
    if (f->is_array() && !f->empty()) return true;
  const Json& grace = engine::Path(o, {"metadata", "deletionGracePeriodSeconds"});
  return grace.is_number_integer() && grace.get<int64_t>() > 0;
}

bool DeletionStarted(const Json& o) { return !engine::Path(o, {"metadata", "deletionTimestamp"}).is_null(); }

// Fills identity fields from the object; errors name `field`'s path.
absl::Status Identify(const Json& o, std::string_view field, EventRecord* ev) {
  auto str = [&](std::initializer_list<std::string_view> keys, std::string_view name,
                 bool required) -> absl::StatusOr<std::string> {
    const Json& v = engine::Path(o, keys);
    if (v.is_null()) {
      if (required) return absl::InvalidArgumentError(recon::StrCat("\"", field, ".", name, "\": missing"));
      return std::string();
    }
    if (!v.is_string() || (required && v.get<std::string>().empty()))
      return absl::InvalidArgumentError(
          recon::StrCat("\"", field, ".", name, "\": expected a non-empty string"));
    return v.get<std::string>();
  };
  auto api = str({"apiVersion"}, "apiVersion", true);
  if (!api.ok()) return api.status();
  auto kind = str({"kind"}, "kind", true);
  if (!kind.ok()) return kind.status();
  auto name = str({"metadata", "name"}, "metadata.name", true);
  if (!name.ok()) return name.status();
  auto ns = str({"metadata", "namespace"}, "metadata.namespace", false);
  if (!ns.ok()) return ns.status();
  auto uid = str({"metadata", "uid"}, "metadata.uid", false);
  if (!uid.ok()) return uid.status();
  auto rv = str({"metadata", "resourceVersion"}, "metadata.resourceVersion", false);
  if (!rv.ok()) return rv.status();
  engine::SplitApiVersion(*api, &ev->object.group, &ev->object.version);
  ev->object.kind = *kind;
  ev->object.name = *name;
  ev->object.ns = *ns;
  ev->object.uid = *uid;
  ev->object.resource_version = *rv;
  ev->body = engine::Dump(o);
  return absl::OkStatus();
}

class Decoder {
 public:
  explicit Decoder(const KindFilter& filter) : filter_(filter) {}

  absl::Status Source(const AuditSource& src) {
    size_t pos = 0, line_no = 0;
    const std::string_view data = src.data;
    while (pos < data.size()) {
      size_t end = data.find('\n', pos);
      const bool last_unterminated = end == std::string_view::npos;
      if (last_unterminated) end = data.size();
      if (auto s = OneLine(src, data.substr(pos, end - pos), ++line_no, last_unterminated); !s.ok()) return s;
      pos = end + 1;
    }
    return absl::OkStatus();
  }

  absl::Status Stream(const std::string& name, std::istream& in) {
    const AuditSource src{name, {}};
    std::string line;
    size_t line_no = 0;
    while (std::getline(in, line)) {
      // getline sets eof when the last line had no newline.
      if (auto s = OneLine(src, line, ++line_no, in.eof()); !s.ok()) return s;
    }
    if (in.bad()) return absl::DataLossError(recon::StrCat(name, ": read error after line ", line_no));
    return absl::OkStatus();
  }

  absl::Status OneLine(const AuditSource& src, std::string_view line, size_t line_no,
                       bool last_unterminated) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) return absl::OkStatus();
    ++result_.read;
    auto j = Header(line);
    if (!j.ok()) {
      // kube-apiserver writes whole lines; only a copy taken mid-write
      // ends in a partial one.
      if (last_unterminated && j.status().code() == absl::StatusCode::kDataLoss) {
        ++result_.skipped[kLastLineCut];
        return absl::OkStatus();
      }
      return Err(src, line_no, "", Sv(j.status().message()));
    }
    return Line(*j, src, line_no);
  }

  // The line's small top-level fields as a Json; the responseObject is kept
  // as text (response_raw_) and parsed only for a line that becomes an
  // event, and the other bodies (requestObject, user, ...) are skipped
  // unparsed: most of a real log is reads, and most of its bytes bodies.
  absl::StatusOr<Json> Header(std::string_view line) {
    response_raw_ = {};
    padded_.assign(line);  // simdjson reads past the end: a padded copy
    padded_.append(simdjson::SIMDJSON_PADDING, '\0');
    // DataLoss: text that may be a line cut short (see Source).
    auto malformed = [](simdjson::error_code e) {
      return absl::DataLossError(recon::StrCat("malformed JSON (", simdjson::error_message(e), ")"));
    };
    od::document doc;
    if (auto e = parser_.iterate(padded_.data(), line.size(), padded_.size()).get(doc)) return malformed(e);
    od::object obj;
    if (auto e = doc.get_object().get(obj)) {
      if (e == simdjson::INCORRECT_TYPE)
        return absl::InvalidArgumentError("expected a JSON object (an audit.k8s.io/v1 Event)");
      return malformed(e);
    }
    Json out = Json::object();
    for (auto field : obj) {
      std::string_view key;
      if (auto e = field.unescaped_key().get(key)) return malformed(e);
      bool wanted = false;
      for (std::string_view k : kHeaderFields) wanted |= k == key;
      if (!wanted) continue;  // skipped unparsed (stage 1 has checked its brackets)
      od::value v;
      if (auto e = field.value().get(v)) return malformed(e);
      std::string_view raw;
      od::json_type t;
      if (auto e = v.type().get(t)) return malformed(e);
      if (t == od::json_type::object) {
        od::object o;
        if (auto e = v.get_object().get(o)) return malformed(e);
        if (auto e = o.raw_json().get(raw)) return malformed(e);
      } else if (t == od::json_type::array) {
        od::array a;
        if (auto e = v.get_array().get(a)) return malformed(e);
        if (auto e = a.raw_json().get(raw)) return malformed(e);
      } else {
        raw = v.raw_json_token();
        while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t')) raw.remove_suffix(1);
      }
      if (key == "responseObject") {
        response_raw_ = raw;
        out[std::string(key)] = true;  // present; parsed when needed
        continue;
      }
      auto parsed = engine::ParseJson(raw);
      if (!parsed.ok()) return malformed(simdjson::TAPE_ERROR);
      out[std::string(key)] = std::move(*parsed);
    }
    const char* trailing = nullptr;
    if (doc.current_location().get(trailing) == simdjson::SUCCESS)
      return absl::InvalidArgumentError("unexpected text after the JSON object");
    return out;
  }

  absl::StatusOr<ImportResult> Finish() {
    for (Pending& p : pending_) {
      if (!p.needs_kind) continue;
      auto it = kinds_seen_.find({p.group, p.plural});
      if (it == kinds_seen_.end()) {
        p.needs_kind = true;
        continue;
      }
      SetDeletedKind(p, it->second);
    }
    std::vector<Pending*> order;
    for (Pending& p : pending_) {
      if (p.needs_kind) {
        ++result_.skipped[kUnknownKind];
        continue;
      }
      if (!filter_.Keeps(p.event.object.group, p.event.object.kind)) {
        ++result_.skipped[kUndeclared];
        continue;
      }
      order.push_back(&p);
    }
    std::stable_sort(order.begin(), order.end(), [](const Pending* a, const Pending* b) {
      return std::tie(a->time_ns, a->audit_id, a->index) < std::tie(b->time_ns, b->audit_id, b->index);
    });
    for (Pending* p : order) result_.events.push_back(std::move(p->event));
    return std::move(result_);
  }

 private:
  static absl::Status Err(const AuditSource& src, size_t line, std::string_view field,
                          std::string_view what) {
    if (field.empty())
      return absl::InvalidArgumentError(recon::StrCat(src.name, ": line ", line, ": ", what));
    return absl::InvalidArgumentError(recon::StrCat(src.name, ": line ", line, ": \"", field, "\": ", what));
  }

  // The kind of (group, plural) as far as known: a declared type, else what
  // another line of the log showed.
  std::string KindOf(std::string_view group, std::string_view plural) const {
    if (const auto* t = filter_.ByResource(group, plural)) return t->kind;
    auto it = kinds_seen_.find({std::string(group), std::string(plural)});
    return it == kinds_seen_.end() ? "" : it->second;
  }

  static void SetDeletedKind(Pending& p, const std::string& kind) {
    p.needs_kind = false;
    p.event.object.kind = kind;
    Json body = engine::ParseJson(p.event.body).value_or(Json::object());
    body["kind"] = kind;
    // Keep apiVersion, kind, metadata in the usual order.
    Json ordered = Json::object();
    ordered["apiVersion"] = body["apiVersion"];
    ordered["kind"] = kind;
    ordered["metadata"] = body["metadata"];
    p.event.body = engine::Dump(ordered);
  }

  // What Admit read of a successful write the log keeps.
  struct Write {
    const AuditSource* src = nullptr;
    size_t n = 0;  // its line
    std::string verb, audit_id, group, resource, subresource;
    int64_t status = 0, time_ns = 0;
    const Json* ref = nullptr;  // objectRef
    const Embedded* embedded = nullptr;
    Json resp;  // the responseObject
  };

  // One audit event: checked, counted if skipped, else its object events.
  absl::Status Line(const Json& j, const AuditSource& src, size_t n) {
    Write w;
    w.src = &src;
    w.n = n;
    bool kept = false;
    if (auto s = Admit(j, &w, &kept); !s.ok() || !kept) return s;
    if (w.embedded) return EmbeddedImport(w);
    const bool is_status = engine::GetString(w.resp, {"kind"}) == "Status";
    if (!w.subresource.empty() && w.subresource != "status") {
      // e.g. /scale answers a Scale, /finalize a Namespace: only an answer
      // that is the object itself is an observation of it.
      if (is_status ||
          engine::GetString(w.resp, {"metadata", "name"}) != engine::GetString(*w.ref, {"name"}) ||
          engine::GetString(w.resp, {"kind"}) != KindOf(w.group, w.resource)) {
        ++result_.skipped[kOtherSubresource];
        return absl::OkStatus();
      }
    }
    if (w.verb == "deletecollection") return DeleteCollection(w, is_status);
    if (w.verb == "delete") {
      // The object as deleted; with finalizers left it still exists.
      if (!is_status)
        return Add(w, DeletionPending(w.resp) ? EventType::kModified : EventType::kDeleted, w.resp,
                   "responseObject", 0);
      return DeleteAnsweredWithStatus(w);
    }
    // create, update, patch (the object or its status).
    if (is_status)
      return Err(src, n, "responseObject", "a Status answer to a successful write, expected the object");
    // TokenReviews, SubjectAccessReviews, ...: answered, never stored (and
    // a TokenReview carries a bearer token).
    if (!engine::Path(w.resp, {"metadata", "resourceVersion"}).is_string()) {
      ++result_.skipped[kNotStored];
      return absl::OkStatus();
    }
    EventType t = w.verb == "create" || w.status == 201 ? EventType::kAdded : EventType::kModified;
    // The last finalizer removed from an object being deleted: the apiserver
    // deletes it as this write completes.
    if (w.verb != "create" && DeletionStarted(w.resp) && !DeletionPending(w.resp)) t = EventType::kDeleted;
    return Add(w, t, w.resp, "responseObject", 0);
  }

  // The header checks, in the order the skip counters report them: a bad
  // field is an error naming it; a line the log does not keep is counted
  // and leaves *kept false.
  absl::Status Admit(const Json& j, Write* w, bool* kept) {
    const AuditSource& src = *w->src;
    const size_t n = w->n;
    if (!j.is_object()) return Err(src, n, "", "expected a JSON object (an audit.k8s.io/v1 Event)");
    auto need_string = [&](std::string_view key, std::string* out) -> absl::Status {
      const Json& v = engine::Path(j, {key});
      if (v.is_null()) return Err(src, n, key, "missing");
      if (!v.is_string() || v.get<std::string>().empty())
        return Err(src, n, key, "expected a non-empty string");
      *out = v.get<std::string>();
      return absl::OkStatus();
    };
    auto skip = [&](const std::string& reason) {
      ++result_.skipped[reason];
      return absl::OkStatus();
    };
    std::string kind, api, stage;
    if (auto s = need_string("kind", &kind); !s.ok()) return s;
    if (kind != "Event") return Err(src, n, "kind", recon::StrCat("expected \"Event\", got \"", kind, "\""));
    if (auto s = need_string("apiVersion", &api); !s.ok()) return s;
    if (api != kAuditApiVersion)
      return Err(src, n, "apiVersion",
                 recon::StrCat("expected \"", kAuditApiVersion, "\", got \"", api, "\""));
    if (auto s = need_string("stage", &stage); !s.ok()) return s;
    if (stage != "ResponseComplete") return skip(kNotComplete);
    if (auto s = need_string("verb", &w->verb); !s.ok()) return s;
    const std::string& verb = w->verb;
    if (verb == "get" || verb == "list" || verb == "watch") return skip(kReads);
    if (verb != "create" && verb != "update" && verb != "patch" && verb != "delete" &&
        verb != "deletecollection")
      return skip(kOtherVerbs);
    if (auto s = need_string("auditID", &w->audit_id); !s.ok()) return s;
    w->ref = &engine::Path(j, {"objectRef"});
    if (w->ref->is_null()) return skip(kNonResource);
    if (!w->ref->is_object()) return Err(src, n, "objectRef", "expected an object");
    w->resource = engine::GetString(*w->ref, {"resource"});
    if (w->resource.empty()) return Err(src, n, "objectRef.resource", "expected a non-empty string");
    w->group = engine::GetString(*w->ref, {"apiGroup"});
    w->subresource = engine::GetString(*w->ref, {"subresource"});
    const Json& code = engine::Path(j, {"responseStatus", "code"});
    if (!code.is_number_integer())
      return Err(src, n, "responseStatus.code", "expected the HTTP status code of the answer");
    w->status = code.get<int64_t>();
    if (w->status < 200 || w->status > 299) return skip(FailedReason(w->status));
    if (engine::GetString(j, {"requestURI"}).find("dryRun=All") != std::string::npos) return skip(kDryRun);
    std::string ts;
    if (auto s = need_string("stageTimestamp", &ts); !s.ok()) return s;
    auto time = engine::ParseRfc3339(ts);
    if (!time.ok()) return Err(src, n, "stageTimestamp", Sv(time.status().message()));
    w->time_ns = *time;

    for (const auto& e : kEmbedded)
      if (e.group == w->group && e.resource == w->resource && w->subresource.empty()) w->embedded = &e;
    // Kind filter first (by resource), so the common case costs no more.
    if (!filter_.all_kinds) {
      bool declared = w->embedded ? filter_.ByResource(w->embedded->group, w->embedded->plural) != nullptr
                                  : filter_.ByResource(w->group, w->resource) != nullptr;
      if (!declared) return skip(kUndeclared);
    }
    if (!response_raw_.empty()) {
      auto parsed = engine::ParseJson(response_raw_);
      if (!parsed.ok()) return Err(src, n, "responseObject", Sv(parsed.status().message()));
      w->resp = std::move(*parsed);
    }
    if (w->resp.is_null()) {
      const Json& t = engine::Path(j, {"annotations", "audit.k8s.io/truncated"});
      return skip(t.is_string() && t.get<std::string>() == "true" ? kApiTruncated : kNoBody);
    }
    if (!w->resp.is_object()) return Err(src, n, "responseObject", "expected an object");
    if (!repeated_.insert(w->audit_id).second) return skip(kRepeated);
    *kept = true;
    return absl::OkStatus();
  }

  // One object event of the write, from `obj` (found at `field`).
  absl::Status Add(const Write& w, EventType type, const Json& obj, std::string_view field, size_t index) {
    Pending p;
    p.time_ns = w.time_ns;
    p.audit_id = w.audit_id;
    p.index = index;
    p.event.time_ns = w.time_ns;
    p.event.type = type;
    if (auto s = Identify(obj, field, &p.event); !s.ok()) return Err(*w.src, w.n, "", Sv(s.message()));
    if (!w.embedded && !p.event.object.kind.empty() && p.event.object.group == w.group)
      kinds_seen_[{w.group, w.resource}] = p.event.object.kind;
    pending_.push_back(std::move(p));
    return absl::OkStatus();
  }

  // An image import answers with the ImageStream it changed, in
  // status.import.
  absl::Status EmbeddedImport(const Write& w) {
    if (w.verb != "create") {
      ++result_.skipped[kOtherVerbs];
      return absl::OkStatus();
    }
    const Json& inner = engine::Path(w.resp, {"status", "import"});
    if (!IsObject(inner)) {
      // A dry run (spec.import false) changes nothing.
      ++result_.skipped[kOtherSubresource];
      return absl::OkStatus();
    }
    Json obj = inner;
    if (!obj.contains("apiVersion"))
      obj["apiVersion"] = w.group + "/" + engine::GetString(*w.ref, {"apiVersion"}, "v1");
    if (!obj.contains("kind")) obj["kind"] = w.embedded->kind;
    return Add(w, EventType::kModified, obj, "responseObject.status.import", 0);
  }

  absl::Status DeleteCollection(const Write& w, bool is_status) {
    const Json& items = engine::Path(w.resp, {"items"});
    if (is_status || !items.is_array()) {
      ++result_.skipped[kStatusCollection];
      return absl::OkStatus();
    }
    const std::string item_kind = KindOf(w.group, w.resource);
    for (size_t i = 0; i < items.size(); ++i) {
      Json obj = items[i];
      if (!obj.is_object())
        return Err(*w.src, w.n, recon::StrCat("responseObject.items[", i, "]"), "expected an object");
      if (!obj.contains("apiVersion")) obj["apiVersion"] = engine::GetString(w.resp, {"apiVersion"});
      if (!obj.contains("kind") && !item_kind.empty()) obj["kind"] = item_kind;
      EventType t = DeletionPending(obj) ? EventType::kModified : EventType::kDeleted;
      if (auto s = Add(w, t, obj, recon::StrCat("responseObject.items[", i, "]"), i); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  // A delete answered with a Status: the object is named by objectRef; its
  // kind is the declared one, or what another line showed (see Finish).
  absl::Status DeleteAnsweredWithStatus(const Write& w) {
    Pending p;
    p.time_ns = w.time_ns;
    p.audit_id = w.audit_id;
    p.event.time_ns = w.time_ns;
    p.event.type = EventType::kDeleted;
    const std::string name = engine::GetString(*w.ref, {"name"});
    if (name.empty()) return Err(*w.src, w.n, "objectRef.name", "expected the deleted object's name");
    const std::string version = engine::GetString(*w.ref, {"apiVersion"});
    if (version.empty()) return Err(*w.src, w.n, "objectRef.apiVersion", "expected a non-empty string");
    p.event.object.group = w.group;
    p.event.object.version = version;
    p.event.object.name = name;
    p.event.object.ns = engine::GetString(*w.ref, {"namespace"});
    p.event.object.uid = engine::GetString(*w.ref, {"uid"}, engine::GetString(w.resp, {"details", "uid"}));
    Json md = Json::object();
    md["name"] = name;
    if (!p.event.object.ns.empty()) md["namespace"] = p.event.object.ns;
    if (!p.event.object.uid.empty()) md["uid"] = p.event.object.uid;
    Json body = Json::object();
    body["apiVersion"] = w.group.empty() ? version : w.group + "/" + version;
    body["metadata"] = std::move(md);
    p.event.body = engine::Dump(body);
    p.group = w.group;
    p.plural = w.resource;
    std::string kind = KindOf(w.group, w.resource);
    if (kind.empty()) {
      p.needs_kind = true;
    } else {
      SetDeletedKind(p, kind);
    }
    pending_.push_back(std::move(p));
    return absl::OkStatus();
  }

  const KindFilter& filter_;
  od::parser parser_;
  std::string padded_;
  std::string_view response_raw_;  // into padded_, for the line in hand
  ImportResult result_;
  std::vector<Pending> pending_;
  std::map<std::pair<std::string, std::string>, std::string> kinds_seen_;
  std::set<std::string> repeated_;
};

}  // namespace

absl::StatusOr<ImportResult> DecodeAuditLogs(const std::vector<AuditSource>& sources,
                                             const KindFilter& filter) {
  Decoder d(filter);
  for (const auto& src : sources)
    if (auto s = d.Source(src); !s.ok()) return s;
  return d.Finish();
}

absl::StatusOr<ImportResult> DecodeAuditStreams(
    const std::vector<std::pair<std::string, std::istream*>>& sources, const KindFilter& filter) {
  Decoder d(filter);
  for (const auto& [name, in] : sources)
    if (auto s = d.Stream(name, *in); !s.ok()) return s;
  return d.Finish();
}

}  // namespace recon::adapters::importers
