// The public ApiServer: each call runs on the loop thread (Impl::Call), so
// the fault controls and read access are thread-safe.
#include "adapters/sim/api_server.h"

#include "adapters/sim/api_server_impl.h"
#include "adapters/sim/api_status.h"
#include "base/strings.h"

namespace recon::sim {

ServerStats ApiServer::Impl::stats() const {
  ServerStats out = stats_;
  const auto& st = sim_->stats();
  out.injected += st.injected_write_errors;
  out.edits_applied = st.edits_applied;
  out.edits_failed = st.edits_failed;
  for (const auto& w : st.warnings) {
    if (out.edit_failures.size() >= 5) break;
    if (w.starts_with("edit at ")) out.edit_failures.push_back(w);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> ApiServer::Impl::objects() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [k, o] : sim_->objects().objects())
    out.emplace_back(recon::StrCat(k.group, "/", k.kind, "/", k.ns, "/", k.name), engine::Dump(o));
  return out;
}

std::optional<std::string> ApiServer::Impl::ObjectJson(const ObjectKey& key) {
  const Json* o = sim_->objects().Get(key);
  if (o == nullptr) return std::nullopt;
  return engine::Dump(*o);
}

ApiResult ApiServer::Impl::Write(const std::string& verb, const std::string& object_json) {
  auto j = engine::ParseJson(object_json);
  if (!j.ok()) return Failure(400, "BadRequest", std::string(Sv(j.status().message())));
  return sim_->Write(verb, *j);
}

absl::StatusOr<std::unique_ptr<ApiServer>> ApiServer::Start(const Scenario& scenario, ServeOptions options,
                                                            std::vector<engine::ResourceType> resources) {
  auto impl = std::make_unique<Impl>(scenario, std::move(options), std::move(resources));
  if (auto s = impl->Init(); !s.ok()) return s;
  return std::unique_ptr<ApiServer>(new ApiServer(std::move(impl)));
}

ApiServer::ApiServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ApiServer::~ApiServer() { Stop(); }

int ApiServer::port() const { return impl_->port(); }
std::string ApiServer::url() const { return recon::StrCat("http://", impl_->host(), ":", impl_->port()); }
void ApiServer::Stop() { impl_->Stop(); }

void ApiServer::DropWatches() {
  impl_->Call([this] { impl_->DropWatches(); });
}
void ApiServer::Compact() {
  impl_->Call([this] { impl_->Compact(); });
}
void ApiServer::FailNext(int count, int status, int retry_after_s, std::string verb_filter) {
  impl_->Call([&] { impl_->FailNext(count, status, retry_after_s, verb_filter); });
}
void ApiServer::Restart() {
  impl_->Call([this] { impl_->Restart(); });
}
std::optional<std::string> ApiServer::ObjectJson(const std::string& group, const std::string& kind,
                                                 const std::string& ns, const std::string& name) {
  std::optional<std::string> out;
  impl_->Call([&] { out = impl_->ObjectJson(ObjectKey{group, kind, ns, name}); });
  return out;
}
std::vector<RequestLogEntry> ApiServer::Requests() {
  std::vector<RequestLogEntry> out;
  impl_->Call([&] { out = impl_->log(); });
  return out;
}
uint64_t ApiServer::ResourceVersion() {
  uint64_t out = 0;
  impl_->Call([&] { out = impl_->resource_version(); });
  return out;
}
void ApiServer::Unavailable(int64_t real_ms) {
  impl_->Call([&] { impl_->Unavailable(real_ms); });
}
ServerStats ApiServer::Stats() {
  ServerStats out;
  impl_->Call([&] { out = impl_->stats(); });
  return out;
}
ApiResult ApiServer::Write(const std::string& verb, const std::string& object_json) {
  ApiResult out;
  impl_->Call([&] { out = impl_->Write(verb, object_json); });
  return out;
}

std::vector<std::pair<std::string, std::string>> ApiServer::Objects() {
  std::vector<std::pair<std::string, std::string>> out;
  impl_->Call([&] { out = impl_->objects(); });
  return out;
}
size_t ApiServer::OpenWatches() {
  size_t out = 0;
  impl_->Call([&] { out = impl_->open_watches(); });
  return out;
}

}  // namespace recon::sim
