// A test-only domain for the scenario runner: an App (demo.example.com/v1)
// gets a finalizer and an ImageStream for spec.image, and a Ready condition
// from the import's outcome; deleting the App deletes the stream, then
// drops the finalizer. A Cluster event asks a probe and sets a timer.
#ifndef RECON_TESTS_ADAPTERS_SIM_TEST_APP_DOMAIN_H_
#define RECON_TESTS_ADAPTERS_SIM_TEST_APP_DOMAIN_H_

#include <algorithm>

#include "base/strings.h"
#include "engine/reducer.h"
#include "engine/time_format.h"

namespace recon::sim::testing {

class AppDomain : public engine::Reducer {
 public:
  static constexpr char kFinalizer[] = "demo.example.com/cleanup";

  std::string_view Domain() const override { return "app"; }
  engine::DomainDescriptor Describe() const override {
    return {.options = {{"recheck", "10m", "recheck period", false, ""}}};
  }
  absl::Status SetOption(std::string_view key, std::string_view value) override {
    if (key != "recheck") return Reducer::SetOption(key, value);
    auto d = engine::ParseDurationNs(value);
    if (!d.ok()) return d.status();
    recheck_ns_ = *d;
    return absl::OkStatus();
  }

  void Reduce(const engine::Event& e, const engine::World& world, engine::Emit& emit) override {
    using records::EventType;
    if (e.type == EventType::kCluster) {
      emit.Probe("app/internet", "https://example.test/");
      emit.SetTimer("app/recheck", e.time_ns + recheck_ns_);
      return;
    }
    if (e.type == EventType::kTimer) {
      ++rechecks_;
      for (const auto* app : world.List("demo.example.com", "App")) Reconcile(*app, world, emit);
      return;
    }
    if (e.type == EventType::kActionResult && !e.ok) {
      for (const auto* app : world.List("demo.example.com", "App")) Reconcile(*app, world, emit);
      return;
    }
    if (!e.IsObject()) return;
    if ((e.group == "demo.example.com" && e.kind == "App") ||
        (e.group == "image.openshift.io" && e.kind == "ImageStream")) {
      if (const auto* app = world.Get("demo.example.com", "App", e.ns, e.name)) Reconcile(*app, world, emit);
    }
  }

  absl::Status Snapshot(engine::SnapshotWriter& w) const override {
    w.WriteJson(engine::Json{{"rechecks", rechecks_}, {"recheck_ns", recheck_ns_}});
    return absl::OkStatus();
  }
  absl::Status Restore(engine::SnapshotReader& r) override {
    auto j = r.ReadJson();
    if (!j.ok()) return j.status();
    rechecks_ = engine::Path(*j, {"rechecks"}).get<int>();
    recheck_ns_ = engine::Path(*j, {"recheck_ns"}).get<int64_t>();
    return absl::OkStatus();
  }

 private:
  void Reconcile(const engine::Object& app, const engine::World& world, engine::Emit& emit) {
    using engine::Json;
    const Json& a = app.json();
    std::string ns(app.ns()), name(app.name());
    const engine::Object* is = world.Get("image.openshift.io", "ImageStream", ns, name);
    Json finalizers = engine::Path(a, {"metadata", "finalizers"});
    bool has_finalizer = finalizers.is_array() &&
                         std::find(finalizers.begin(), finalizers.end(), kFinalizer) != finalizers.end();
    if (!engine::GetString(a, {"metadata", "deletionTimestamp"}).empty()) {
      if (is != nullptr) {
        emit.Delete(is->json());
      } else if (has_finalizer) {
        Json next = a;
        next["metadata"]["finalizers"] = Json::array();
        emit.Update(next);
      }
      return;
    }
    if (!has_finalizer) {
      Json next = a;
      if (!next["metadata"]["finalizers"].is_array()) next["metadata"]["finalizers"] = Json::array();
      next["metadata"]["finalizers"].push_back(kFinalizer);
      emit.Update(next);  // carries resourceVersion: a stale view gets a 409
      return;
    }
    std::string image = engine::GetString(a, {"spec", "image"});
    Json want_tags =
        Json::array({{{"name", "latest"}, {"from", {{"kind", "DockerImage"}, {"name", image}}}}});
    if (is == nullptr) {
      emit.Create(Json{{"apiVersion", "image.openshift.io/v1"},
                       {"kind", "ImageStream"},
                       {"metadata", {{"name", name}, {"namespace", ns}}},
                       {"spec", {{"tags", want_tags}}}});
      return;
    }
    const Json& tags = engine::Path(is->json(), {"spec", "tags"});
    if (!tags.is_array() || tags.empty() || engine::GetString(tags[0], {"from", "name"}) != image) {
      Json next = is->json();
      next["spec"]["tags"] = want_tags;
      emit.Update(next);
      return;
    }
    Json cond = {{"type", "Ready"}, {"status", "Unknown"}, {"reason", "Importing"}};
    const Json& st = engine::Path(is->json(), {"status", "tags"});
    if (st.is_array() && !st.empty()) {
      const Json& c = engine::Path(st[0], {"conditions"});
      if (c.is_array() && !c.empty()) {
        cond = {{"type", "Ready"}, {"status", "False"}, {"reason", engine::GetString(c[0], {"reason"})}};
      } else if (engine::Path(st[0], {"items"}).is_array() && !engine::Path(st[0], {"items"}).empty()) {
        cond = {{"type", "Ready"}, {"status", "True"}, {"reason", "Imported"}};
      }
    }
    Json status = {{"conditions", Json::array({cond})}};
    if (engine::Path(a, {"status"}) != status) {
      Json next = {{"apiVersion", "demo.example.com/v1"},
                   {"kind", "App"},
                   {"metadata", {{"name", name}, {"namespace", ns}}},
                   {"status", status}};
      emit.UpdateStatus(next);
    }
  }

  int rechecks_ = 0;
  int64_t recheck_ns_ = 600'000'000'000;
};

}  // namespace recon::sim::testing

#endif  // RECON_TESTS_ADAPTERS_SIM_TEST_APP_DOMAIN_H_
