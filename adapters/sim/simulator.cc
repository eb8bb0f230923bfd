#include "adapters/sim/simulator.h"

#include <algorithm>

#include "absl/strings/str_split.h"
#include "adapters/sim/azure.h"
#include "base/strings.h"
#include "engine/emit.h"
#include "engine/jsonl_reader.h"
#include "spdlog/spdlog.h"

namespace recon::sim {
namespace {

constexpr std::string_view kImageGroup = "image.openshift.io";
constexpr int64_t kDefaultResyncNs = 5LL * 60 * 1'000'000'000;

ObjectKey KeyOfEvent(const records::EventRecord& e) {
  return ObjectKey{e.object.group, e.object.kind, e.object.ns, e.object.name};
}

bool IsObjectVerb(std::string_view verb) {
  return verb == "create" || verb == "update" || verb == "updateStatus" || verb == "delete" ||
         verb == "importImage";
}

// Sets a dotted path ("spec.managementState"), creating objects on the way.
void SetPath(Json& obj, std::string_view path, const Json& value) {
  Json* at = &obj;
  for (absl::string_view part : absl::StrSplit(Av(path), '.')) {
    if (!at->is_object()) *at = Json::object();
    at = &(*at)[std::string(part)];
  }
  *at = value;
}

}  // namespace

Simulator::Simulator(const Scenario& scenario, ApiOptions api)
    : scenario_(scenario),
      start_ns_(scenario.start_ns),
      now_(scenario.start_ns),
      objects_(scenario.seed),
      api_(objects_, std::move(api)),
      faults_(scenario.faults, scenario.seed),
      import_rules_(scenario.imports, scenario.latency.import_ns),
      probes_(scenario.probes, scenario.latency.probe_ns,
              engine::Path(scenario.facts, {"disconnected"}).is_boolean() &&
                  engine::Path(scenario.facts, {"disconnected"}).get<bool>(),
              scenario.start_ns) {
  last_watch_at_ = now_;
}

void Simulator::Push(int64_t at, Item item) {
  if (item.kind == Kind::kEvent || item.kind == Kind::kTask) ++work_;
  queue_.emplace(QueueKey{std::max(at, now_), order_++}, std::move(item));
}

std::optional<int64_t> Simulator::NextTime() const {
  if (queue_.empty()) return std::nullopt;
  return queue_.begin()->first.first;
}

std::vector<records::EventRecord> Simulator::Start() {
  std::vector<records::EventRecord> out;
  for (const Json& o : scenario_.objects) {
    auto key = KeyOf(o);
    if (!key.ok()) continue;  // the scenario parser checked these
    ApiResult r =
        IsAzure(*key) ? AzureApply(objects_, "create", *key, o, now_) : api_.ServerWrite(*key, o, now_);
    for (auto& e : r.events) {
      e.time_ns = now_;
      known_.insert(KeyOfEvent(e));
      if (e.object.group == kImageGroup && e.object.kind == "ImageStream") OnImageStreamEvent(e);
      out.push_back(std::move(e));
    }
  }
  for (const Edit& edit : scenario_.edits) {
    Item item;
    item.kind = Kind::kTask;
    item.task = [this, edit]() { RunEdit(edit); };
    Push(start_ns_ + edit.at_ns, std::move(item));
  }
  if (scenario_.faults.drop_watch > 0 || scenario_.faults.resync_ns > 0) {
    Item item;
    item.kind = Kind::kResync;
    Push(now_ + (scenario_.faults.resync_ns > 0 ? scenario_.faults.resync_ns : kDefaultResyncNs),
         std::move(item));
  }
  return out;
}

std::vector<records::EventRecord> Simulator::Step() {
  std::vector<records::EventRecord> out;
  if (queue_.empty()) return out;
  now_ = std::max(now_, queue_.begin()->first.first);
  while (!queue_.empty() && queue_.begin()->first.first <= now_) {
    auto node = queue_.extract(queue_.begin());
    Item& item = node.mapped();
    switch (item.kind) {
      case Kind::kEvent: {
        --work_;
        records::EventRecord e = std::move(item.event);
        e.time_ns = now_;
        if (e.type == records::EventType::kDeleted) {
          known_.erase(KeyOfEvent(e));
        } else if (e.type == records::EventType::kAdded || e.type == records::EventType::kModified) {
          known_.insert(KeyOfEvent(e));
        }
        out.push_back(std::move(e));
        break;
      }
      case Kind::kTask:
        --work_;
        item.task();
        break;
      case Kind::kResync: {
        Resync();
        Item next;
        next.kind = Kind::kResync;
        Push(now_ + (scenario_.faults.resync_ns > 0 ? scenario_.faults.resync_ns : kDefaultResyncNs),
             std::move(next));
        break;
      }
    }
  }
  return out;
}

void Simulator::Result(const records::ActionRecord& action, const ApiResult& r, int64_t at) {
  (r.ok ? stats_.results_ok : stats_.results_failed)[action.verb]++;
  Item item;
  item.event.type = records::EventType::kActionResult;
  item.event.action_result.action = engine::ActionId(action.cause_seq, action.index);
  item.event.action_result.ok = r.ok;
  item.event.action_result.status = r.status;
  item.event.action_result.error = r.error;
  if (!r.warnings.empty()) {
    Json warnings = Json::array();
    for (const std::string& w : r.warnings) warnings.push_back(w);
    item.event.action_result.warnings = engine::Dump(warnings);
  }
  if (r.ok && !r.unchanged_rv.empty()) {
    item.event.action_result.resource_version = r.unchanged_rv;
    item.event.action_result.uid = r.unchanged_uid;
  } else if (r.ok) {
    // The written object's metadata as the server returned it (a real
    // server answers a write with the object): its last watch event.
    for (auto e = r.events.rbegin(); e != r.events.rend(); ++e) {
      if (e->object.kind != action.object.kind || e->object.name != action.object.name ||
          e->object.ns != action.object.ns || e->object.group != action.object.group)
        continue;
      item.event.action_result.resource_version = e->object.resource_version;
      item.event.action_result.uid = e->object.uid;
      break;
    }
  }
  Push(at, std::move(item));
}

void Simulator::Watch(std::vector<records::EventRecord> events) {
  if (sink_) {
    for (const auto& e : events) {
      if (e.object.group == kImageGroup && e.object.kind == "ImageStream") OnImageStreamEvent(e);
      OnChange(e);
    }
    if (!events.empty()) sink_(std::move(events));
    return;
  }
  for (auto& e : events) {
    if (e.object.group == kImageGroup && e.object.kind == "ImageStream") OnImageStreamEvent(e);
    OnChange(e);
    switch (faults_.OnWatch()) {
      case FaultInjector::Watch::kDrop:
        ++stats_.watch_dropped;
        dropped_[KeyOfEvent(e)] = std::move(e);
        continue;
      case FaultInjector::Watch::kDelay:
        ++stats_.watch_delayed;
        last_watch_at_ =
            std::max(last_watch_at_, now_ + scenario_.latency.watch_ns + scenario_.faults.delay_ns);
        break;
      case FaultInjector::Watch::kDeliver:
        last_watch_at_ = std::max(last_watch_at_, now_ + scenario_.latency.watch_ns);
        break;
    }
    Item item;
    item.event = std::move(e);
    Push(last_watch_at_, std::move(item));
  }
}

void Simulator::Resync() {
  // A relist: the agent learns the current state of what it missed.
  std::vector<records::EventRecord> events;
  for (auto& [key, missed] : dropped_) {
    const Json* current = objects_.Get(key);
    bool known = known_.contains(key);
    if (current != nullptr) {
      events.push_back(
          WatchEvent(known ? records::EventType::kModified : records::EventType::kAdded, *current, now_));
    } else if (known) {
      missed.type = records::EventType::kDeleted;
      events.push_back(std::move(missed));
    }
  }
  dropped_.clear();
  for (auto& e : events) {
    ++stats_.watch_resynced;
    Item item;
    item.event = std::move(e);
    last_watch_at_ = std::max(last_watch_at_, now_ + scenario_.latency.watch_ns);
    Push(last_watch_at_, std::move(item));
  }
}

void Simulator::Apply(const records::ActionRecord& action) {
  if (action.verb == "probe") {
    Item item;
    item.event = probes_.Answer(action.probe, action.target, now_);
    int64_t at = item.event.time_ns;
    Push(at, std::move(item));
    return;
  }
  int64_t answer_at = now_ + scenario_.latency.api_ns;
  if (!IsObjectVerb(action.verb)) {
    stats_.warnings.push_back(recon::StrCat("action ", engine::ActionId(action.cause_seq, action.index),
                                            ": unknown verb \"", action.verb, "\""));
    Result(action, Failure(405, "MethodNotAllowed", recon::StrCat("unknown verb \"", action.verb, "\"")),
           answer_at);
    return;
  }
  auto body = engine::ParseJson(action.body);
  if (!body.ok() || !body->is_object()) {
    Result(action, Failure(400, "BadRequest", "the action's object is not a JSON object"), answer_at);
    return;
  }
  if (int status = faults_.WriteFault(); status != 0) {
    ++stats_.injected_write_errors;
    ObjectKey key{action.object.group, action.object.kind, action.object.ns, action.object.name};
    Result(action, InjectedFailure(status, key), answer_at);
    return;
  }
  if (action.verb == "importImage") {
    ImportImage(action, *body);
    return;
  }
  ApiResult r = api_.Apply(action.verb, *body, now_);
  Result(action, r, answer_at);
  Watch(std::move(r.events));
}

void Simulator::ImportImage(const records::ActionRecord& action, const Json& body) {
  bool scheduled = false;
  ApiResult r = StartImport(body, &scheduled, [this, action](const ApiResult& done) {
    Result(action, done, now_ + scenario_.latency.api_ns);
  });
  if (!scheduled) Result(action, r, now_ + scenario_.latency.api_ns);
}

ApiResult Simulator::StartImport(const Json& body, bool* scheduled,
                                 std::function<void(const ApiResult&)> done) {
  *scheduled = false;
  ObjectKey key{std::string(kImageGroup), "ImageStream", engine::GetString(body, {"metadata", "namespace"}),
                engine::GetString(body, {"metadata", "name"})};
  auto imports = ImportsOf(body);
  if (key.name.empty() || !imports.ok()) {
    std::string why = imports.ok() ? "metadata.name: required" : std::string(Sv(imports.status().message()));
    return Failure(422, "Invalid", recon::StrCat("imagestreamimports.image.openshift.io: ", why));
  }
  ApiResult answer;
  answer.status = 201;
  const Json& do_import = engine::Path(body, {"spec", "import"});
  if (!do_import.is_boolean() || !do_import.get<bool>()) {
    return answer;  // a dry run: the answer says what would import, nothing changes
  }
  int64_t latency = 0;
  for (auto& t : *imports) {
    t.outcome = import_rules_.Decide(t.from);
    latency = std::max(latency, t.outcome.latency_ns);
  }
  // The call is synchronous in OpenShift: the answer comes when the
  // registry has answered for every image.
  Item item;
  item.kind = Kind::kTask;
  item.task = [this, key, imports = std::move(*imports), done = std::move(done)]() {
    for (const auto& t : imports) {
      imported_from_[key][t.tag] = t.from;
      (t.outcome.ok ? stats_.imports_ok : stats_.imports_failed)++;
    }
    ApiResult r = ApplyImports(api_, key, imports, /*set_spec=*/true, now_);
    r.status = 201;
    done(r);
    Watch(std::move(r.events));
  };
  Push(now_ + latency, std::move(item));
  *scheduled = true;
  return answer;
}

ApiResult Simulator::Write(std::string_view verb, const Json& object) {
  if (int status = faults_.WriteFault(); status != 0) {
    ++stats_.injected_write_errors;
    auto key = KeyOf(object);
    return InjectedFailure(status, key.ok() ? *key : ObjectKey{});
  }
  ApiResult r = api_.Apply(verb, object, now_);
  (r.ok ? stats_.results_ok : stats_.results_failed)[std::string(verb)]++;
  Watch(r.events);
  return r;
}

ApiResult Simulator::RequestImport(const Json& image_stream_import) {
  if (int status = faults_.WriteFault(); status != 0) {
    ++stats_.injected_write_errors;
    return InjectedFailure(status, ObjectKey{std::string(kImageGroup), "ImageStreamImport", "", ""});
  }
  bool scheduled = false;
  return StartImport(image_stream_import, &scheduled, [](const ApiResult&) {});
}

void Simulator::AdvanceClock(int64_t t) {
  if (auto next = NextTime()) t = std::min(t, *next);
  now_ = std::max(now_, t);
}

void Simulator::OnImageStreamEvent(const records::EventRecord& e) {
  ObjectKey key = KeyOfEvent(e);
  if (e.type == records::EventType::kDeleted) {
    imported_from_.erase(key);
    return;
  }
  const Json* stream = objects_.Get(key);
  if (stream == nullptr) return;
  auto& asked = imported_from_[key];
  const Json& status_tags = engine::Path(*stream, {"status", "tags"});
  for (const auto& [tag, from] : DockerImageTags(*stream)) {
    auto it = asked.find(tag);
    if (it != asked.end() && it->second == from) continue;
    bool first_sight = it == asked.end();
    asked[tag] = from;
    // An initial object that already shows an import result was imported
    // before the scenario began.
    if (first_sight && status_tags.is_array()) {
      bool has_result = false;
      for (const Json& st : status_tags) has_result |= engine::GetString(st, {"tag"}) == tag;
      if (has_result && e.type == records::EventType::kAdded) continue;
    }
    TagImport t;
    t.tag = tag;
    t.from = from;
    t.outcome = import_rules_.Decide(from);
    Item item;
    item.kind = Kind::kTask;
    item.task = [this, key, t]() {
      // Still the same image asked? Otherwise a newer import owns the tag.
      auto s = imported_from_.find(key);
      if (s == imported_from_.end() || s->second[t.tag] != t.from) return;
      (t.outcome.ok ? stats_.imports_ok : stats_.imports_failed)++;
      ApiResult r = ApplyImports(api_, key, {t}, /*set_spec=*/false, now_);
      Watch(std::move(r.events));
    };
    Push(now_ + t.outcome.latency_ns, std::move(item));
  }
}

void Simulator::OnChange(const records::EventRecord& e) {
  if (!controller_) return;
  for (ControllerWrite& w : controller_(e, objects_)) {
    Item item;
    item.kind = Kind::kTask;
    item.task = [this, w = std::move(w)]() {
      // A controller writes what it read just now (client-go's
      // RetryOnConflict): an update carries the stored resourceVersion.
      Json object = w.object;
      if (w.verb == "update" || w.verb == "updateStatus") {
        auto key = KeyOf(object);
        const Json* current = key.ok() ? objects_.Get(*key) : nullptr;
        if (!w.drop_owners.empty()) {
          if (current == nullptr) return;
          object = *current;
          Json kept = Json::array();
          for (const Json& r : engine::Path(*current, {"metadata", "ownerReferences"}))
            if (std::find(w.drop_owners.begin(), w.drop_owners.end(), engine::GetString(r, {"uid"})) ==
                w.drop_owners.end())
              kept.push_back(r);
          if (kept.size() == engine::Path(*current, {"metadata", "ownerReferences"}).size()) return;
          object["metadata"]["ownerReferences"] = std::move(kept);
        }
        if (current != nullptr && object.is_object())
          object["metadata"]["resourceVersion"] = engine::Path(*current, {"metadata", "resourceVersion"});
      }
      ApiResult r = api_.Apply(w.verb, object, now_);
      // The controller stands in for another operator: its refused writes
      // are a harness bug, never silent.
      if (!r.ok && r.status != 404 && r.status != 409)
        spdlog::warn("sim controller: {} {} refused: {} {}", w.verb, engine::GetString(object, {"kind"}),
                     r.status, r.error);
      Watch(std::move(r.events));
    };
    Push(now_ + w.delay_ns, std::move(item));
  }
}

const Json* Simulator::Find(const Json& ref, ObjectKey* key) const {
  std::string kind = engine::GetString(ref, {"kind"}), name = engine::GetString(ref, {"name"});
  std::string ns = engine::GetString(ref, {"namespace"});
  std::string group = "\x01";  // any group unless apiVersion says
  if (ref.contains("apiVersion")) {
    std::string version;
    engine::SplitApiVersion(engine::GetString(ref, {"apiVersion"}), &group, &version);
    // Known group: one lookup instead of a scan (the soak edits thousands).
    ObjectKey k{group, kind, ns, name};
    const Json* obj = objects_.Get(k);
    if (obj != nullptr) *key = k;
    return obj;
  }
  for (const auto& [k, obj] : objects_.objects()) {
    if (k.kind == kind && k.name == name && k.ns == ns && (group == "\x01" || k.group == group)) {
      *key = k;
      return &obj;
    }
  }
  return nullptr;
}

void Simulator::DeleteSelected(const Json& ref, ApiResult* r, std::string* what) {
  std::string kind = engine::GetString(ref, {"kind"}), ns = engine::GetString(ref, {"namespace"});
  const Json& selector = engine::Path(ref, {"labelSelector"});
  *what = recon::StrCat("delete ", kind, " in ", ns, " by label");
  std::vector<Json> victims;
  for (const auto& [k, obj] : objects_.objects()) {
    if (k.kind != kind || k.ns != ns) continue;
    bool match = selector.is_object();
    for (auto it = selector.begin(); match && it != selector.end(); ++it) {
      const Json& v = engine::Path(obj, {"metadata", "labels", it.key()});
      match = v.is_string() && *it == v;
    }
    if (match) victims.push_back(obj);
  }
  // None matching is no error: `kubectl delete -l` deletes nothing.
  for (const Json& v : victims) {
    ApiResult one = api_.Delete(v, now_);
    for (auto& e : one.events) r->events.push_back(std::move(e));
  }
}

void Simulator::RunEdit(const Edit& edit) {
  ApiResult r;
  std::string what;
  switch (edit.op) {
    case Edit::Op::kCreate:
      what = recon::StrCat("create ", engine::GetString(edit.object, {"kind"}), " ",
                           engine::GetString(edit.object, {"metadata", "name"}));
      r = api_.Create(edit.object, now_);
      break;
    case Edit::Op::kUpdate: {
      what = recon::StrCat("update ", engine::GetString(edit.object, {"kind"}), " ",
                           engine::GetString(edit.object, {"metadata", "name"}));
      // As `kubectl apply` does: a patch, so the current resourceVersion.
      Json next = edit.object;
      auto key = KeyOf(next);
      const Json* current = key.ok() ? objects_.Get(*key) : nullptr;
      if (current != nullptr && engine::GetString(next, {"metadata", "resourceVersion"}).empty())
        next["metadata"]["resourceVersion"] = engine::Path(*current, {"metadata", "resourceVersion"});
      r = api_.Update(next, now_);
      break;
    }
    case Edit::Op::kSet:
    case Edit::Op::kDelete: {
      if (edit.op == Edit::Op::kDelete && edit.object.contains("labelSelector")) {
        DeleteSelected(edit.object, &r, &what);
        break;
      }
      ObjectKey key;
      const Json* current = Find(edit.object, &key);
      what = recon::StrCat(edit.op == Edit::Op::kSet ? "set " : "delete ",
                           engine::GetString(edit.object, {"kind"}), " ",
                           engine::GetString(edit.object, {"name"}),
                           edit.op == Edit::Op::kSet ? recon::StrCat(" ", edit.path) : "");
      if (current == nullptr) {
        r = Failure(404, "NotFound", "no such object");
        break;
      }
      if (edit.op == Edit::Op::kDelete) {
        r = api_.Delete(*current, now_);
        break;
      }
      // A user's edit wins (kubectl patch: applied to the current object).
      Json next = *current;
      SetPath(next, edit.path, edit.value);
      bool status = edit.path.starts_with("status.") && api_.RulesFor(key, next).status_subresource;
      r = status ? api_.UpdateStatus(next, now_) : api_.Update(next, now_);
      break;
    }
  }
  if (r.ok) {
    ++stats_.edits_applied;
  } else {
    ++stats_.edits_failed;
    stats_.warnings.push_back(
        recon::StrCat("edit at +", (edit.at_ns / 1'000'000'000), "s (", what, "): ", r.error));
  }
  Watch(std::move(r.events));
}

}  // namespace recon::sim
