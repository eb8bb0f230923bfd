// Writes seed corpora for the fuzz targets from real inputs:
//   fuzz_seeds OUT_DIR SOURCE_DIR [SHARED_DATA_DIR]
// recorded logs (examples/*.jsonl, tests/scenarios/**/*.jsonl) give JSONL
// lines, encoded store records and snapshots; catalogs (the repo's test
// catalogs, Content events of the olm scenarios and, when present, small
// pieces of SHARED_DATA_DIR/olm) give catalog files and semver ranges. The
// upstream data is never copied into the repo: seeds live in the build dir.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "domains/aro/reducer.h"
#include "domains/olm/reducer.h"
#include "domains/samples/reducer.h"
#include "engine/engine.h"
#include "engine/event.h"
#include "engine/jsonl_reader.h"
#include "records/codec.h"
#include "runtime/unanswered.h"
#include "store/memory_store.h"

namespace fs = std::filesystem;
namespace st = recon::store;

namespace {

// Big seeds make every fuzzing iteration slow; small pieces reach the same code.
constexpr size_t kMaxSeed = 16 * 1024;
constexpr size_t kMaxSnapshot = 64 * 1024;

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

uint64_t Fnv(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

class Corpus {
 public:
  Corpus(fs::path dir, size_t max_size) : dir_(std::move(dir)), max_size_(max_size) {
    fs::create_directories(dir_);
  }
  void Add(const std::string& bytes) {
    if (bytes.empty() || bytes.size() > max_size_) return;
    char name[32];
    std::snprintf(name, sizeof name, "seed-%016llx", static_cast<unsigned long long>(Fnv(bytes)));
    if (!names_.insert(name).second) return;
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
  }
  size_t size() const { return names_.size(); }

 private:
  fs::path dir_;
  size_t max_size_;
  std::set<std::string> names_;
};

std::vector<fs::path> Glob(const fs::path& dir, const std::string& ext, bool recursive) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  if (recursive) {
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file() && e.path().extension() == ext) out.push_back(e.path());
  } else {
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file() && e.path().extension() == ext) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::unique_ptr<recon::engine::Engine> NewEngine() {
  std::vector<std::unique_ptr<recon::engine::Reducer>> reducers;
  reducers.push_back(recon::samples::MakeReducer());
  reducers.push_back(recon::olm::MakeReducer());
  reducers.push_back(recon::aro::MakeReducer());
  return std::make_unique<recon::engine::Engine>(std::move(reducers));
}

// skipRange and version values as written in YAML or JSON catalogs.
void AddSemver(const std::string& text, Corpus& semver, size_t cap) {
  static const std::regex re(R"re("?(olm\.skipRange|skipRange|version)"?\s*:\s*['"]?([^'"\n,}]+))re");
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end && semver.size() < cap; ++it) {
    semver.Add((*it)[2].str());
  }
}

// Every target's corpus, filled by the steps below in turn.
struct Corpora {
  explicit Corpora(const fs::path& out)
      : jsonl(out / "fuzz_jsonl_line", kMaxSeed),
        record(out / "fuzz_store_record", kMaxSeed),
        snapshot(out / "fuzz_snapshot_restore", kMaxSnapshot),
        catalog(out / "fuzz_olm_catalog", kMaxSeed),
        semver(out / "fuzz_semver_range", 256),
        scenario(out / "fuzz_sim_scenario", kMaxSeed),
        watch(out / "fuzz_watch_stream", kMaxSeed),
        kubeconfig(out / "fuzz_kubeconfig", kMaxSeed),
        redact(out / "fuzz_redact", kMaxSeed) {}
  Corpus jsonl, record, snapshot, catalog, semver, scenario, watch, kubeconfig, redact;
};

// The log's objects as a watch stream would carry them, each stream after
// the byte that seeds the target's chunk sizes; its Secrets for redaction.
void SeedWatchStreams(const std::vector<recon::engine::ParsedLine>& parsed, Corpora& c) {
  std::string stream = "\x05";
  for (const auto& pl : parsed) {
    if (pl.event.type > recon::records::EventType::kDeleted || pl.event.body.empty()) continue;
    static constexpr const char* kWatchType[] = {"ADDED", "MODIFIED", "DELETED"};
    std::string line = std::string("{\"type\":\"") + kWatchType[static_cast<int>(pl.event.type)] +
                       "\",\"object\":" + pl.event.body + "}\n";
    if (stream.size() + line.size() > kMaxSeed) {
      c.watch.Add(stream);
      stream = "\x05";
    }
    stream += line;
    if (pl.event.object.kind == "Secret") c.redact.Add(pl.event.body);
  }
  if (stream.size() > 1) c.watch.Add(stream);
}

// The log as a store holds it: each event's and action's payload, content
// payloads (and olm catalogs among them), and at half-way and the end the
// unanswered-actions checkpoint and the engine's snapshot.
void SeedStoreRecords(const std::vector<recon::engine::ParsedLine>& parsed, Corpora& c) {
  auto engine = NewEngine();
  std::vector<recon::records::ActionRecord> actions;
  st::MemoryStore log;
  uint64_t seq = 0;
  for (const auto& pl : parsed) {
    ++seq;
    if (!log.Append(std::vector<recon::records::EventRecord>{pl.event}).ok()) break;
    std::string payload = recon::records::EncodeEventPayload(seq, pl.event);
    c.record.Add(payload);
    if (seq == 1) c.record.Add(recon::records::Frame(recon::records::EventKey(1), payload));
    if (!pl.event.content_files.empty()) {
      c.record.Add(recon::records::EncodeContentPayload(pl.event.content_digest, pl.event.content_files));
      if (pl.event.content_name.starts_with("olm/catalog/")) {
        for (const auto& [name, body] : pl.event.content_files) {
          c.catalog.Add(body);
          AddSemver(body, c.semver, 200);
        }
      }
    }
    actions.clear();
    if (!engine->Step(recon::engine::Event::FromRecord(seq, pl.event), &actions).ok()) break;
    for (const auto& a : actions) c.record.Add(recon::records::EncodeActionPayload(a));
    if (!log.AppendActions(actions).ok()) break;
    if (seq == parsed.size() / 2 || seq == parsed.size()) {
      recon::runtime::UnansweredScan scan;
      if (scan.Advance(log, seq).ok()) c.record.Add(scan.Encode());
      if (auto snap = engine->Snapshot(); snap.ok()) c.snapshot.Add(*snap);
    }
  }
}

// The repository's recorded logs and scenario logs: whole and line by line,
// then as watch streams and as store records.
void SeedFromLogs(const fs::path& src, Corpora& c) {
  std::vector<fs::path> logs = Glob(src / "examples", ".jsonl", false);
  for (const auto& p : Glob(src / "tests/scenarios", ".jsonl", true)) logs.push_back(p);
  recon::engine::JsonlReader reader;
  for (const auto& path : logs) {
    std::string text = ReadFile(path);
    c.jsonl.Add(text);
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) c.jsonl.Add(line);
    auto parsed = reader.ParseAll(text, path.string());
    if (!parsed.ok()) continue;
    SeedWatchStreams(*parsed, c);
    SeedStoreRecords(*parsed, c);
  }
}

// The repository's catalogs (olm test data) and simulator scenarios.
void SeedFromFiles(const fs::path& src, Corpora& c) {
  for (const auto& p : Glob(src / "tests/domains/olm/testdata", ".yaml", true)) {
    std::string text = ReadFile(p);
    c.catalog.Add(text);
    AddSemver(text, c.semver, 250);
  }
  for (const auto& p : Glob(src / "examples/scenarios", ".json", false)) c.scenario.Add(ReadFile(p));
  for (const auto& p : Glob(src / "tests/adapters/sim", ".json", true)) c.scenario.Add(ReadFile(p));
}

// What no recorded file holds: a bookmark and a 410 in a watch stream,
// kubeconfigs with each kind of credential and server setting, Secrets in
// the shapes redaction must handle.
void SeedHandWritten(Corpora& c) {
  c.watch.Add(
      "\x07{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\","
      "\"metadata\":{\"resourceVersion\":\"12345\"}}}\n");
  c.watch.Add(
      "\x03{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":"
      "\"Failure\",\"message\":\"too old resource version\",\"reason\":\"Expired\",\"code\":410}}\n");
  for (const auto& user :
       {"token: sEcReT-t0ken-value-0123", "tokenFile: tok/carol",
        "client-certificate-data: Q0VSVA==\n    client-key-data: S0VZLWtleS1kYXRhLTAxMjM0NQ==",
        "client-certificate: certs/c.pem\n    client-key: certs/k.pem"}) {
    for (const auto& cluster : {"server: https://prod.example:6443/\n    certificate-authority-data: "
                                "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==",
                                "server: https://10.0.0.1:6443\n    insecure-skip-tls-verify: true",
                                "server: https://api.lab:6443\n    certificate-authority: certs/ca.pem\n    "
                                "tls-server-name: api"}) {
      c.kubeconfig.Add(
          std::string("apiVersion: v1\nkind: Config\ncurrent-context: dev\nclusters:\n- name: prod\n"
                      "  cluster:\n    ") +
          cluster + "\nusers:\n- name: alice\n  user:\n    " + user +
          "\ncontexts:\n- name: dev\n  context: {cluster: prod, user: alice, namespace: team}\n"
          "- name: prod\n  context:\n    cluster: prod\n    user: alice\n");
    }
  }
  c.redact.Add(
      R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"pull-secret","namespace":"openshift-config"},)"
      R"("type":"kubernetes.io/dockerconfigjson","data":{".dockerconfigjson":")"
      R"(eyJhdXRocyI6eyJyZWdpc3RyeS5yZWRoYXQuaW8iOnsiYXV0aCI6ImRYTmxjanB3WVhOeiJ9fX0="}})");
  c.redact.Add(
      R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","annotations":)"
      R"({"kubectl.kubernetes.io/last-applied-configuration":"{\"stringData\":{\"a\":\"b\"}}"}},)"
      R"("data":{"a":"Yg==","n":null},"stringData":{"b":"plain",".dockercfg":"{\"r.io\":{\"auth\":\"x\"}}"}})");
}

// Small pieces of the real catalogs: whole small packages of the YAML one,
// one package's blobs at a time of the JSON one.
void SeedFromSharedCatalogs(const fs::path& data, Corpora& c) {
  if (data.empty() || !fs::is_directory(data / "olm")) return;
  int yaml_files = 0;
  for (const auto& p : Glob(data / "olm/community-v4.19", ".yaml", true)) {
    std::string text = ReadFile(p);
    AddSemver(text, c.semver, 400);
    if (text.size() <= kMaxSeed && yaml_files < 40) {
      c.catalog.Add(text);
      ++yaml_files;
    }
  }
  int json_pieces = 0;
  std::string piece;
  std::istringstream lines(ReadFile(data / "olm/community-derived/catalog.json"));
  for (std::string line; std::getline(lines, line);) {
    if (line.find("\"olm.package\"") != std::string::npos && !piece.empty()) {
      if (piece.size() <= kMaxSeed && json_pieces < 40) {
        c.catalog.Add(piece);
        ++json_pieces;
      }
      AddSemver(piece, c.semver, 500);
      piece.clear();
    }
    piece += line + "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: fuzz_seeds OUT_DIR SOURCE_DIR [SHARED_DATA_DIR]\n");
    return 2;
  }
  fs::path out = argv[1], src = argv[2];
  fs::path data = argc > 3 ? fs::path(argv[3]) : fs::path();
  Corpora c(out);
  SeedFromLogs(src, c);
  SeedFromFiles(src, c);
  SeedHandWritten(c);
  SeedFromSharedCatalogs(data, c);
  std::printf(
      "seeds: jsonl %zu, record %zu, snapshot %zu, catalog %zu, semver %zu, scenario %zu, watch %zu, "
      "kubeconfig %zu, redact %zu\n",
      c.jsonl.size(), c.record.size(), c.snapshot.size(), c.catalog.size(), c.semver.size(),
      c.scenario.size(), c.watch.size(), c.kubeconfig.size(), c.redact.size());
  return 0;
}
