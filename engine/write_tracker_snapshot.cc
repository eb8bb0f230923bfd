// The write tracker's snapshot: its in-flight writes and per-object
// outcomes as JSON, restored with the engine (write_tracker.h).
#include <algorithm>

#include "base/strings.h"
#include "engine/write_tracker.h"

namespace recon::engine {
namespace {

const char* OriginName(Origin o) {
  switch (o) {
    case Origin::kOurs:
      return "ours";
    case Origin::kOther:
      return "other";
    case Origin::kNone:
      break;
  }
  return "";
}

Origin OriginOf(std::string_view s) {
  if (s == "ours") return Origin::kOurs;
  if (s == "other") return Origin::kOther;
  return Origin::kNone;
}

// A snapshot's JSON may hand a number back signed.
uint64_t U64(const Json& x) {
  if (x.is_number_unsigned()) return x.get<uint64_t>();
  if (x.is_number_integer() && x.get<int64_t>() > 0) return uint64_t(x.get<int64_t>());
  return 0;
}

Json WriteToJson(const TrackedWrite& w) {
  Json j{{"action", w.action}, {"domain", w.domain}, {"verb", w.verb}, {"group", w.group}, {"kind", w.kind},
         {"namespace", w.ns},  {"name", w.name},     {"seq", w.seq},   {"at", w.at_ns},    {"body", w.body}};
  if (w.answered) {
    j["answeredSeq"] = w.answered_seq;
    j["resourceVersion"] = w.rv;
    j["uid"] = w.uid;
  }
  if (w.status) j["status"] = *w.status;
  if (!w.error.empty()) j["error"] = w.error;
  if (w.retrying) j["retrying"] = true;  // only when set: earlier snapshots read back the same
  return j;
}

TrackedWrite WriteFromJson(const Json& v) {
  auto u64 = [&](std::string_view k) { return U64(Path(v, {k})); };
  TrackedWrite w;
  w.action = GetString(v, {"action"});
  w.domain = GetString(v, {"domain"});
  w.verb = GetString(v, {"verb"});
  w.group = GetString(v, {"group"});
  w.kind = GetString(v, {"kind"});
  w.ns = GetString(v, {"namespace"});
  w.name = GetString(v, {"name"});
  w.seq = u64("seq");
  const Json& at = Path(v, {"at"});
  w.at_ns = at.is_number_integer() ? at.get<int64_t>() : 0;
  w.body = GetString(v, {"body"});
  w.answered = v.contains("answeredSeq");
  w.answered_seq = u64("answeredSeq");
  w.rv = GetString(v, {"resourceVersion"});
  w.uid = GetString(v, {"uid"});
  const Json& status = Path(v, {"status"});
  if (status.is_number_integer()) w.status = status.get<int32_t>();
  w.error = GetString(v, {"error"});
  w.retrying = Path(v, {"retrying"}) == Json(true);
  return w;
}

}  // namespace

Json WriteTracker::ToJson() const {
  Json writes = Json::array();
  for (const auto& [id, w] : by_action_) writes.push_back(WriteToJson(w));
  Json objects = Json::object();
  for (const auto& [key, o] : objects_) {
    Json j{{"writes", o.writes},
           {"produced", Json(std::vector<std::string>(o.produced.begin(), o.produced.end()))},
           {"seenRv", o.seen_rv},
           {"last", OriginName(o.last)},
           {"seenSeq", o.seen_seq},
           {"otherSeq", o.other_seq},
           {"otherRv", o.other_rv},
           {"prevOtherSeq", o.prev_other_seq},
           {"deleted", o.deleted},
           {"deletedSeq", o.deleted_seq}};
    if (!o.held.empty()) {
      Json held = Json::array();
      for (const auto& [seq, rv] : o.held) held.push_back(Json{{"seq", seq}, {"rv", rv}});
      j["held"] = std::move(held);
    }
    if (!o.refused.empty()) {
      Json refused = Json::object();
      for (const auto& [domain, w] : o.refused) refused[domain] = WriteToJson(w);
      j["refused"] = std::move(refused);
    }
    if (!o.outcomes.empty()) {
      Json outcomes = Json::object();
      for (const auto& [domain, oc] : o.outcomes) {
        Json x = Json::object();
        if (oc.refused) x["refused"] = WriteToJson(*oc.refused);
        if (oc.landed) x["landed"] = WriteToJson(*oc.landed);
        if (oc.refusals != 0) x["refusals"] = oc.refusals;
        outcomes[domain] = std::move(x);
      }
      j["outcomes"] = std::move(outcomes);
    }
    objects[key] = std::move(j);
  }
  Json out{{"writes", std::move(writes)}, {"objects", std::move(objects)}};
  if (answers_carry_rv_) out["answersCarryResourceVersion"] = true;
  return out;
}

absl::Status WriteTracker::FromJson(const Json& j) {
  Clear();
  auto bad = [](std::string_view what) {
    return absl::DataLossError(recon::StrCat("snapshot: engine.writeTracker: ", what));
  };
  if (!j.is_object()) return bad("expected an object");
  answers_carry_rv_ = Path(j, {"answersCarryResourceVersion"}) == Json(true);
  auto u64 = [](const Json& v, std::string_view k) { return U64(Path(v, {k})); };
  const Json& writes = Path(j, {"writes"});
  if (!writes.is_array()) return bad("writes: expected an array");
  for (const Json& v : writes) {
    if (!v.is_object()) return bad("writes[]: expected an object");
    TrackedWrite w = WriteFromJson(v);
    if (w.action.empty()) return bad("writes[].action: expected an action id");
    std::string id = w.action;
    by_action_[std::move(id)] = std::move(w);
  }
  const Json& objects = Path(j, {"objects"});
  if (!objects.is_object()) return bad("objects: expected an object");
  for (auto it = objects.begin(); it != objects.end(); ++it) {
    PerObject o;
    for (const Json& id : Path(it.value(), {"writes"})) {
      if (!id.is_string() || !by_action_.contains(id.get<std::string>()))
        return bad(recon::StrCat("objects.", it.key(), ".writes: names no write"));
      o.writes.push_back(id.get<std::string>());
    }
    for (const Json& rv : Path(it.value(), {"produced"}))
      if (rv.is_string()) o.produced.push_back(rv.get<std::string>());
    o.seen_rv = GetString(it.value(), {"seenRv"});
    o.last = OriginOf(GetString(it.value(), {"last"}));
    o.seen_seq = u64(it.value(), "seenSeq");
    o.other_seq = u64(it.value(), "otherSeq");
    o.other_rv = GetString(it.value(), {"otherRv"});
    o.prev_other_seq = u64(it.value(), "prevOtherSeq");
    o.deleted = Path(it.value(), {"deleted"}) == Json(true);
    o.deleted_seq = u64(it.value(), "deletedSeq");  // 0 in snapshots from before it
    for (const Json& h : Path(it.value(), {"held"}))
      if (h.is_object()) o.held.emplace_back(u64(h, "seq"), GetString(h, {"rv"}));
    const Json& refused = Path(it.value(), {"refused"});
    if (refused.is_object())
      for (auto r = refused.begin(); r != refused.end(); ++r) o.refused[r.key()] = WriteFromJson(r.value());
    const Json& outcomes = Path(it.value(), {"outcomes"});
    for (auto r = outcomes.begin(); outcomes.is_object() && r != outcomes.end(); ++r) {
      PerObject::Outcome& oc = o.outcomes[r.key()];
      if (const Json& x = Path(r.value(), {"refused"}); x.is_object()) oc.refused = WriteFromJson(x);
      if (const Json& x = Path(r.value(), {"landed"}); x.is_object()) oc.landed = WriteFromJson(x);
      if (const Json& n = Path(r.value(), {"refusals"}); n.is_number_integer()) oc.refusals = n.get<int>();
    }
    objects_[it.key()] = std::move(o);
  }
  return absl::OkStatus();
}

}  // namespace recon::engine
