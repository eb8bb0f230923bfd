#include "engine/event.h"

#include "store/codec.h"

namespace recon::engine {

Event Event::FromRecord(uint64_t seq, const engine::EventRecord& r) {
  Event e;
  e.seq = seq;
  e.time_ns = r.time_ns;
  e.type = r.type;
  e.group = r.object.group;
  e.version = r.object.version;
  e.kind = r.object.kind;
  e.ns = r.object.ns;
  e.name = r.object.name;
  e.uid = r.object.uid;
  e.resource_version = r.object.resource_version;
  e.body = r.body;
  e.timer = r.timer;
  e.probe = r.probe.name;
  e.target = r.probe.target;
  e.detail = r.probe.detail;
  e.data = r.probe.data;
  if (r.type == EventType::kProbe) {
    e.ok = r.probe.ok;
    e.status = r.probe.status;
  } else if (r.type == EventType::kActionResult) {
    e.ok = r.action_result.ok;
    e.status = r.action_result.status;
    e.resource_version = r.action_result.resource_version;
    e.uid = r.action_result.uid;
  }
  e.action = r.action_result.action;
  e.error = r.action_result.error;
  e.facts = r.cluster_facts;
  e.content_name = r.content_name;
  e.content_digest = r.content_digest;
  if (!r.content_files.empty()) e.content_files = &r.content_files;
  return e;
}

Event Event::FromCapnp(schema::Event::Reader r) {
  using store::View;
  Event e;
  e.seq = r.getSeq();
  e.time_ns = r.getTimeNs();
  e.type = static_cast<EventType>(r.getType());
  if (e.IsObject()) {
    auto o = r.getObject();
    e.group = View(o.getGroup());
    e.version = View(o.getVersion());
    e.kind = View(o.getKind());
    e.ns = View(o.getNamespace());
    e.name = View(o.getName());
    e.uid = View(o.getUid());
    e.resource_version = View(o.getResourceVersion());
    e.body = View(r.getBody());
  }
  switch (e.type) {
    case EventType::kTimer:
      e.timer = View(r.getTimer());
      break;
    case EventType::kProbe: {
      auto p = r.getProbe();
      e.probe = View(p.getName());
      e.target = View(p.getTarget());
      e.ok = p.getOk();
      if (p.getHasStatus()) e.status = p.getStatus();
      e.detail = View(p.getDetail());
      e.data = View(p.getData());
      break;
    }
    case EventType::kActionResult: {
      auto a = r.getActionResult();
      e.action = View(a.getAction());
      e.ok = a.getOk();
      if (a.getHasStatus()) e.status = a.getStatus();
      e.error = View(a.getError());
      e.resource_version = View(a.getResourceVersion());
      e.uid = View(a.getUid());
      break;
    }
    case EventType::kCluster:
      e.facts = View(r.getClusterFacts());
      break;
    case EventType::kContent:
      e.content_name = View(r.getContent().getName());
      e.content_digest = View(r.getContent().getDigest());
      break;
    default:
      break;
  }
  return e;
}

}  // namespace recon::engine
