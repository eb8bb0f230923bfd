// A test-only domain that exercises what real domains use: objects, labels,
// deletes, timers, probes, action results and its own snapshot state.
#ifndef RECON_TESTS_ENGINE_TEST_DOMAIN_H_
#define RECON_TESTS_ENGINE_TEST_DOMAIN_H_

#include <chrono>
#include <map>
#include <string>

#include "base/strings.h"
#include "engine/reducer.h"
#include "engine/time_format.h"

namespace recon::testing {

class TestDomain : public engine::Reducer {
 public:
  std::string_view Domain() const override { return "test"; }
  engine::DomainDescriptor Describe() const override {
    return {.options = {{"interval", "60s", "tick interval", false, ""}}};
  }
  absl::Status SetOption(std::string_view key, std::string_view value) override {
    if (key != "interval") return Reducer::SetOption(key, value);
    auto d = engine::ParseDurationNs(value);
    if (!d.ok()) return d.status();
    interval_ns_ = *d;
    return absl::OkStatus();
  }

  void Reduce(const engine::Event& e, const engine::World& world, engine::Emit& emit) override {
    using engine::Json;
    using records::EventType;
    if (e.IsObject() && e.kind == "ConfigMap") {
      std::string ns(e.ns);
      if (e.type == EventType::kDeleted) {
        counts_[ns]--;
        emit.Delete(Json{{"apiVersion", "v1"},
                         {"kind", "Secret"},
                         {"metadata", {{"namespace", ns}, {"name", recon::StrCat("derived-", e.name)}}}});
      } else {
        if (e.type == EventType::kAdded) counts_[ns]++;
        const engine::Object* o = world.Get("", "ConfigMap", e.ns, e.name);
        if (o && o->Label("watch") == "yes") {
          Json derived = {{"apiVersion", "v1"},
                          {"kind", "Secret"},
                          {"metadata", {{"namespace", ns}, {"name", recon::StrCat("derived-", e.name)}}},
                          {"data", {{"source", std::string(e.resource_version)}, {"count", counts_[ns]}}}};
          emit.Update(derived);
        }
      }
      // Everything labelled watch=yes in this namespace, in key order.
      Json names = Json::array();
      for (const auto* obj : world.Select("", "ConfigMap", {{"watch", "yes"}})) {
        if (obj->ns() == e.ns) names.push_back(std::string(obj->name()));
      }
      emit.UpdateStatus(
          Json{{"apiVersion", "v1"},
               {"kind", "Namespace"},
               {"metadata", {{"name", ns}}},
               {"status", {{"watched", names}, {"at", engine::FormatRfc3339Seconds(e.time_ns)}}}});
    } else if (e.type == EventType::kTimer && e.timer == "test/tick") {
      ++ticks_;
      emit.Probe("test/ping", recon::StrCat("https://example.test/", ticks_ % 3));
      emit.SetTimer("test/tick", e.time_ns + interval_ns_);
    } else if (e.type == EventType::kActionResult && !e.ok) {
      failures_[std::string(e.action)]++;
    } else if (e.type == EventType::kCluster) {
      emit.UpdateStatus(Json{{"apiVersion", "v1"},
                             {"kind", "Node"},
                             {"metadata", {{"name", "facts"}}},
                             {"status", world.facts()}});
    }
    if (read_clock_) {
      // Deliberately impure: the determinism harness must catch this.
      emit.SetTimer("test/clock", std::chrono::system_clock::now().time_since_epoch().count());
    }
  }

  absl::Status Snapshot(engine::SnapshotWriter& w) const override {
    engine::Json j = {
        {"counts", counts_}, {"failures", failures_}, {"ticks", ticks_}, {"interval", interval_ns_}};
    w.WriteJson(j);
    return absl::OkStatus();
  }
  absl::Status Restore(engine::SnapshotReader& r) override {
    auto j = r.ReadJson();
    if (!j.ok()) return j.status();
    counts_ = (*j)["counts"].get<std::map<std::string, int>>();
    failures_ = (*j)["failures"].get<std::map<std::string, int>>();
    ticks_ = (*j)["ticks"].get<int>();
    return absl::OkStatus();
  }

  void set_read_clock(bool v) { read_clock_ = v; }

 private:
  std::map<std::string, int> counts_;
  std::map<std::string, int> failures_;
  int ticks_ = 0;
  int64_t interval_ns_ = 60'000'000'000;
  bool read_clock_ = false;
};

// A domain that loops as olm did in issue 18: every sync creates a new
// InstallPlan (a fresh name) next to a status write of its Subscription,
// whatever became of the last ones. Syncs come from its resync timer (and
// the Cluster event), `syncs` times in all.
class RecreatingDomain : public engine::Reducer {
 public:
  // `same_name`: the create is of one object each time (install), else of
  // a new one (install-1, install-2, ...).
  explicit RecreatingDomain(int syncs = 20, bool same_name = false, int64_t every_ns = 10'000'000'000)
      : left_(syncs), same_name_(same_name), every_(every_ns) {}
  std::string_view Domain() const override { return "recreate"; }
  void Reduce(const engine::Event& e, const engine::World&, engine::Emit& emit) override {
    using engine::Json;
    bool sync = e.type == records::EventType::kCluster ||
                (e.type == records::EventType::kTimer && e.timer == "recreate/resync");
    if (!sync || left_ <= 0) return;
    --left_;
    ++n_;
    emit.Create(Json{{"apiVersion", "operators.coreos.com/v1alpha1"},
                     {"kind", "InstallPlan"},
                     {"metadata",
                      {{"namespace", "ns"},
                       {"name", same_name_ ? std::string("install") : recon::StrCat("install-", n_)}}}});
    emit.UpdateStatus(Json{{"apiVersion", "operators.coreos.com/v1alpha1"},
                           {"kind", "Subscription"},
                           {"metadata", {{"namespace", "ns"}, {"name", "sub"}}},
                           {"status", {{"syncs", n_}}}});
    if (left_ > 0) emit.SetTimer("recreate/resync", e.time_ns + every_);
  }
  absl::Status Snapshot(engine::SnapshotWriter& w) const override {
    w.WriteJson(engine::Json{{"left", left_}, {"n", n_}});
    return absl::OkStatus();
  }
  absl::Status Restore(engine::SnapshotReader& r) override {
    auto j = r.ReadJson();
    if (!j.ok()) return j.status();
    left_ = (*j)["left"].get<int>();
    n_ = (*j)["n"].get<int>();
    return absl::OkStatus();
  }

 private:
  int left_;
  bool same_name_;
  int64_t every_;
  int n_ = 0;
};

}  // namespace recon::testing

#endif  // RECON_TESTS_ENGINE_TEST_DOMAIN_H_
