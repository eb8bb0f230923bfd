#include "engine/event.h"

#include "records/codec.h"

namespace recon::engine {

Event Event::FromRecord(uint64_t seq, const records::EventRecord& r) {
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
  if (r.type == records::EventType::kProbe) {
    e.ok = r.probe.ok;
    e.status = r.probe.status;
  } else if (r.type == records::EventType::kActionResult) {
    e.ok = r.action_result.ok;
    e.status = r.action_result.status;
    e.resource_version = r.action_result.resource_version;
    e.uid = r.action_result.uid;
    e.warnings = r.action_result.warnings;
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
  using records::View;
  Event e;
  e.seq = r.getSeq();
  e.time_ns = r.getTimeNs();
  e.type = static_cast<records::EventType>(r.getType());
  if (e.IsObject()) {
    auto o = r.getObject();
    e.group = records::View(o.getGroup());
    e.version = records::View(o.getVersion());
    e.kind = records::View(o.getKind());
    e.ns = records::View(o.getNamespace());
    e.name = records::View(o.getName());
    e.uid = records::View(o.getUid());
    e.resource_version = records::View(o.getResourceVersion());
    e.body = records::View(r.getBody());
  }
  switch (e.type) {
    case records::EventType::kTimer:
      e.timer = records::View(r.getTimer());
      break;
    case records::EventType::kProbe: {
      auto p = r.getProbe();
      e.probe = records::View(p.getName());
      e.target = records::View(p.getTarget());
      e.ok = p.getOk();
      if (p.getHasStatus()) e.status = p.getStatus();
      e.detail = records::View(p.getDetail());
      e.data = records::View(p.getData());
      break;
    }
    case records::EventType::kActionResult: {
      auto a = r.getActionResult();
      e.action = records::View(a.getAction());
      e.ok = a.getOk();
      if (a.getHasStatus()) e.status = a.getStatus();
      e.error = records::View(a.getError());
      e.resource_version = records::View(a.getResourceVersion());
      e.uid = records::View(a.getUid());
      e.warnings = records::View(a.getWarnings());
      break;
    }
    case records::EventType::kCluster:
      e.facts = records::View(r.getClusterFacts());
      break;
    case records::EventType::kContent:
      e.content_name = records::View(r.getContent().getName());
      e.content_digest = records::View(r.getContent().getDigest());
      break;
    default:
      break;
  }
  return e;
}

}  // namespace recon::engine
