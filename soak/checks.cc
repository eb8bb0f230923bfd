#include "soak/checks.h"

#include <fstream>
#include <map>

#include "absl/strings/escaping.h"
#include "adapters/sim/arm_server.h"
#include "base/strings.h"
#include "engine/json.h"
#include "records/codec.h"
#include "soak/aro.h"
#include "soak/child_process.h"

namespace recon::soak {
namespace {

namespace fs = std::filesystem;

std::string Key(const records::ObjectIdRecord& o) {
  return recon::StrCat(o.group, "/", o.kind, "/", o.ns, "/", o.name);
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void Expect(bool ok, std::vector<std::string>* failures, std::string what) {
  if (!ok) failures->push_back(std::move(what));
}

}  // namespace

void CheckLogAgainstCluster(absl::StatusOr<std::unique_ptr<store::EventStore>> st,
                            const std::set<std::string>& watched,
                            const std::vector<std::pair<std::string, std::string>>& server, bool arm_etags,
                            SoakLeg* leg) {
  auto add = [&](std::string what) {
    ++leg->log_mismatches;
    if (leg->log_examples.size() < 10) leg->log_examples.push_back(std::move(what));
  };
  if (!st.ok()) {
    add(recon::StrCat("store: ", Sv(st.status().message())));
    return;
  }
  leg->events = (*st)->LastSeq();
  std::map<std::string, std::string> logged;  // key → resourceVersion
  auto it = (*st)->ReadEvents(1, (*st)->LastSeq());
  if (!it.ok()) {
    add(recon::StrCat("store: ", Sv(it.status().message())));
    return;
  }
  for (auto& i = *it; i->Valid(); i->Next()) {
    auto e = records::DecodeEvent(i->payload());
    if (!e.ok()) {
      add(recon::StrCat("seq ", i->seq(), ": ", Sv(e.status().message())));
      continue;
    }
    if (e->type == records::EventType::kDeleted) {
      logged.erase(Key(e->object));
    } else if (e->type == records::EventType::kAdded || e->type == records::EventType::kModified) {
      auto j = engine::ParseJson(e->body);
      logged[Key(e->object)] = j.ok() ? engine::GetString(*j, {"metadata", "resourceVersion"}) : "";
    }
  }
  if (!(*it)->status().ok()) add(recon::StrCat("store: ", Sv((*it)->status().message())));
  std::map<std::string, std::string> live;
  const std::string azure = "network.azure.com/";
  auto checked = [&](const std::string& type) {
    return watched.contains(type) || (arm_etags && type.rfind(azure, 0) == 0);
  };
  for (const auto& [key, body] : server) {
    std::string type = key.substr(0, key.find('/', key.find('/') + 1));
    if (!checked(type)) continue;
    auto j = engine::ParseJson(body);
    if (arm_etags && type.rfind(azure, 0) == 0) {
      live[key] = j.ok() ? sim::ArmEtag(engine::Dump(engine::Path(*j, {"spec"}))) : "";
      continue;
    }
    live[key] = j.ok() ? engine::GetString(*j, {"metadata", "resourceVersion"}) : "";
  }
  for (const auto& [key, rv] : live) {
    auto l = logged.find(key);
    if (l == logged.end()) {
      add(recon::StrCat(key, ": in the cluster (resourceVersion ", rv, "), not in the log"));
    } else if (l->second != rv) {
      add(recon::StrCat(key, ": the log's last resourceVersion ", l->second, ", the cluster's ", rv));
    }
  }
  for (const auto& [key, rv] : logged) {
    std::string type = key.substr(0, key.find('/', key.find('/') + 1));
    if (checked(type) && !live.contains(key))
      add(recon::StrCat(key, ": deleted in the cluster, still present in the log"));
  }
}

void CheckNoSecrets(const SoakOptions& o, const fs::path& dir, const std::string& store,
                    const std::vector<std::string>& tokens, const std::string& metrics, SoakLeg* leg) {
  std::vector<std::string> exporter = {o.recon_binary, "log", "export", "--store", store};
  exporter.insert(exporter.end(), o.store_args.begin(), o.store_args.end());
  WaitExit(SpawnLogged(exporter, (dir / "export.jsonl").string()), 600);
  std::vector<std::pair<std::string, std::string>> haystacks = {
      {"agent.log", ReadAll(dir / "agent.log")},
      {"recon log export", ReadAll(dir / "export.jsonl")},
      {"/metrics", metrics}};
  std::vector<std::pair<std::string, std::string>> needles;  // what, value
  for (const char* secret : {"secret-1", kSoakRotatedSecret}) {
    needles.emplace_back(recon::StrCat("the client secret ", secret), secret);
    std::string b64;
    absl::Base64Escape(secret, &b64);
    needles.emplace_back(recon::StrCat("the client secret ", secret, " (base64)"), b64);
  }
  for (size_t i = 0; i < tokens.size(); ++i)
    needles.emplace_back(recon::StrCat("access token ", i + 1, " of ", tokens.size()), tokens[i]);
  for (const auto& [where, text] : haystacks) {
    if (text.empty()) {
      ++leg->secret_leaks;
      leg->leak_examples.push_back(recon::StrCat(where, ": empty, so not checked"));
      continue;
    }
    for (const auto& [what, value] : needles) {
      if (value.empty() || text.find(value) == std::string::npos) continue;
      ++leg->secret_leaks;
      if (leg->leak_examples.size() < 10) leg->leak_examples.push_back(recon::StrCat(where, " holds ", what));
    }
  }
}

void CheckLeg(const SoakOptions& o, const SoakLeg& l, std::vector<std::string>* f) {
  const std::string& n = l.name;
  Expect(l.converged, f, recon::StrCat(n, ": did not converge within ", o.settle_limit_ms / 1000, " s"));
  Expect(l.agent_exit == 0, f, recon::StrCat(n, ": the agent's SIGTERM exit was ", l.agent_exit));
  Expect(l.replay_check_exit == 0, f,
         recon::StrCat(n, ": replay --check exited ", l.replay_check_exit, " (replay-check.log)"));
  Expect(l.server.actions_applied_twice == 0, f,
         recon::StrCat(n, ": ", l.server.actions_applied_twice, " actions applied twice"));
  Expect(l.log_mismatches == 0, f,
         recon::StrCat(n, ": ", l.log_mismatches, " objects where the log and the cluster disagree"));
  Expect(l.secret_leaks == 0, f,
         recon::StrCat(n, ": ", l.secret_leaks,
                       " client secrets or access tokens in the agent's output, its "
                       "log export or /metrics"));
  Expect(l.rss_growth < o.rss_limit, f,
         recon::StrCat(n, ": RSS grew ", static_cast<int>(l.rss_growth * 1000) / 10.0,
                       "% over the final agent's second half"));
}

}  // namespace recon::soak
