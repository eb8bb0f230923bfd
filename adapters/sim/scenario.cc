#include "adapters/sim/scenario.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/strings.h"
#include "engine/time_format.h"

namespace recon::sim {
namespace {

constexpr char kDefaultStart[] = "2026-11-21T10:00:00Z";

class Parser {
 public:
  explicit Parser(std::string_view origin) : origin_(origin) {}

  absl::Status Error(std::string_view field, std::string_view what) const {
    return absl::InvalidArgumentError(recon::StrCat(origin_, ": ", field, ": ", what));
  }

  absl::Status Duration(const Json& v, std::string_view field, int64_t* out) const {
    if (!v.is_string()) return Error(field, "expected a duration string like \"30s\"");
    auto d = engine::ParseDurationNs(v.get<std::string>());
    if (!d.ok()) return Error(field, Sv(d.status().message()));
    *out = *d;
    return absl::OkStatus();
  }

  absl::Status String(const Json& v, std::string_view field, std::string* out) const {
    if (!v.is_string()) return Error(field, "expected a string");
    *out = v.get<std::string>();
    return absl::OkStatus();
  }

  absl::Status Fraction(const Json& v, std::string_view field, double* out) const {
    if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 1) {
      return Error(field, "expected a number between 0 and 1");
    }
    *out = v.get<double>();
    return absl::OkStatus();
  }

  // Rejects keys a section does not know, so a typo is not silently ignored.
  absl::Status Keys(const Json& obj, std::string_view field,
                    std::initializer_list<std::string_view> known) const {
    if (!obj.is_object()) return Error(field, "expected an object");
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      bool ok = false;
      for (auto k : known) ok |= it.key() == k;
      if (!ok) return Error(recon::StrCat(field, ".", it.key()), "unknown field");
    }
    return absl::OkStatus();
  }

 private:
  std::string origin_;
};

#define RETURN_IF_ERROR(expr) \
  do {                        \
    absl::Status _s = (expr); \
    if (!_s.ok()) return _s;  \
  } while (0)

absl::Status ParseImports(const Parser& p, const Json& list, std::vector<ImportRule>* out) {
  if (!list.is_array()) return p.Error("imports", "expected a list of rules");
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& r = list[i];
    std::string f = recon::StrCat("imports[", i, "]");
    RETURN_IF_ERROR(p.Keys(r, f, {"match", "fail", "reason", "message", "latency", "times"}));
    ImportRule rule;
    if (r.contains("match")) RETURN_IF_ERROR(p.String(r["match"], f + ".match", &rule.match));
    if (r.contains("fail")) {
      std::string fail;
      RETURN_IF_ERROR(p.String(r["fail"], f + ".fail", &fail));
      rule.fail = fail;
    }
    if (r.contains("reason")) RETURN_IF_ERROR(p.String(r["reason"], f + ".reason", &rule.reason));
    if (r.contains("message")) RETURN_IF_ERROR(p.String(r["message"], f + ".message", &rule.message));
    if (r.contains("latency")) {
      int64_t d = 0;
      RETURN_IF_ERROR(p.Duration(r["latency"], f + ".latency", &d));
      rule.latency_ns = d;
    }
    if (r.contains("times")) {
      if (!r["times"].is_number_integer() || r["times"].get<int>() < 0)
        return p.Error(f + ".times", "expected a count");
      rule.times = r["times"].get<int>();
    }
    out->push_back(std::move(rule));
  }
  return absl::OkStatus();
}

absl::Status ParseProbes(const Parser& p, const Json& list, std::vector<ProbeRule>* out) {
  if (!list.is_array()) return p.Error("probes", "expected a list of rules");
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& r = list[i];
    std::string f = recon::StrCat("probes[", i, "]");
    RETURN_IF_ERROR(
        p.Keys(r, f, {"probe", "target", "ok", "status", "detail", "data", "latency", "after", "before"}));
    ProbeRule rule;
    if (r.contains("probe")) RETURN_IF_ERROR(p.String(r["probe"], f + ".probe", &rule.probe));
    if (r.contains("target")) RETURN_IF_ERROR(p.String(r["target"], f + ".target", &rule.target));
    if (r.contains("ok")) {
      if (!r["ok"].is_boolean()) return p.Error(f + ".ok", "expected true or false");
      rule.ok = r["ok"].get<bool>();
    }
    if (r.contains("status")) {
      if (!r["status"].is_number_integer()) return p.Error(f + ".status", "expected an HTTP status code");
      rule.status = r["status"].get<int32_t>();
    }
    if (r.contains("detail")) RETURN_IF_ERROR(p.String(r["detail"], f + ".detail", &rule.detail));
    if (r.contains("data")) rule.data = r["data"];
    if (r.contains("latency")) {
      int64_t d = 0;
      RETURN_IF_ERROR(p.Duration(r["latency"], f + ".latency", &d));
      rule.latency_ns = d;
    }
    if (r.contains("after")) RETURN_IF_ERROR(p.Duration(r["after"], f + ".after", &rule.after_ns));
    if (r.contains("before")) RETURN_IF_ERROR(p.Duration(r["before"], f + ".before", &rule.before_ns));
    out->push_back(std::move(rule));
  }
  return absl::OkStatus();
}

absl::Status ParseFaults(const Parser& p, const Json& j, Faults* out) {
  RETURN_IF_ERROR(p.Keys(j, "faults", {"dropWatch", "delayWatch", "writeErrors", "resync"}));
  if (j.contains("dropWatch"))
    RETURN_IF_ERROR(p.Fraction(j["dropWatch"], "faults.dropWatch", &out->drop_watch));
  if (j.contains("delayWatch")) {
    const Json& d = j["delayWatch"];
    RETURN_IF_ERROR(p.Keys(d, "faults.delayWatch", {"fraction", "by"}));
    if (d.contains("fraction"))
      RETURN_IF_ERROR(p.Fraction(d["fraction"], "faults.delayWatch.fraction", &out->delay_watch));
    if (d.contains("by")) RETURN_IF_ERROR(p.Duration(d["by"], "faults.delayWatch.by", &out->delay_ns));
  }
  if (j.contains("writeErrors")) {
    const Json& list = j["writeErrors"];
    if (!list.is_array()) return p.Error("faults.writeErrors", "expected a list");
    double total = 0;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string f = recon::StrCat("faults.writeErrors[", i, "]");
      RETURN_IF_ERROR(p.Keys(list[i], f, {"status", "fraction"}));
      WriteFault w;
      const Json& st = engine::Path(list[i], {"status"});
      if (!st.is_number_integer() || (st.get<int>() != 409 && st.get<int>() != 429 && st.get<int>() != 500)) {
        return p.Error(f + ".status", "expected 409, 429 or 500");
      }
      w.status = st.get<int>();
      RETURN_IF_ERROR(p.Fraction(engine::Path(list[i], {"fraction"}), f + ".fraction", &w.fraction));
      total += w.fraction;
      out->write_errors.push_back(w);
    }
    if (total > 1) return p.Error("faults.writeErrors", "fractions add up to more than 1");
  }
  if (j.contains("resync")) RETURN_IF_ERROR(p.Duration(j["resync"], "faults.resync", &out->resync_ns));
  return absl::OkStatus();
}

absl::Status ParseLatency(const Parser& p, const Json& j, Latency* out) {
  RETURN_IF_ERROR(p.Keys(j, "latency", {"api", "watch", "probe", "import"}));
  if (j.contains("api")) RETURN_IF_ERROR(p.Duration(j["api"], "latency.api", &out->api_ns));
  if (j.contains("watch")) RETURN_IF_ERROR(p.Duration(j["watch"], "latency.watch", &out->watch_ns));
  if (j.contains("probe")) RETURN_IF_ERROR(p.Duration(j["probe"], "latency.probe", &out->probe_ns));
  if (j.contains("import")) RETURN_IF_ERROR(p.Duration(j["import"], "latency.import", &out->import_ns));
  return absl::OkStatus();
}

absl::Status ParseEdits(const Parser& p, const Json& list, std::vector<Edit>* out) {
  if (!list.is_array()) return p.Error("edits", "expected a list");
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& e = list[i];
    std::string f = recon::StrCat("edits[", i, "]");
    RETURN_IF_ERROR(p.Keys(e, f, {"at", "set", "create", "update", "delete"}));
    Edit edit;
    if (!e.contains("at")) return p.Error(f + ".at", "missing (a duration from the start, e.g. \"2m\")");
    RETURN_IF_ERROR(p.Duration(e["at"], f + ".at", &edit.at_ns));
    int ops = 0;
    if (e.contains("set")) {
      ++ops;
      const Json& s = e["set"];
      RETURN_IF_ERROR(p.Keys(s, f + ".set", {"apiVersion", "kind", "namespace", "name", "path", "value"}));
      edit.op = Edit::Op::kSet;
      edit.object = s;
      if (!engine::Path(s, {"kind"}).is_string()) return p.Error(f + ".set.kind", "expected a string");
      if (!engine::Path(s, {"name"}).is_string()) return p.Error(f + ".set.name", "expected a string");
      RETURN_IF_ERROR(p.String(engine::Path(s, {"path"}), f + ".set.path", &edit.path));
      if (!s.contains("value")) return p.Error(f + ".set.value", "missing");
      edit.value = s["value"];
      edit.object.erase("path");
      edit.object.erase("value");
    }
    for (std::string_view op : {"create", "update"}) {
      if (!e.contains(op)) continue;
      ++ops;
      const Json& o = e[std::string(op)];
      if (!o.is_object() || !o.contains("apiVersion") || !o.contains("kind") ||
          engine::GetString(o, {"metadata", "name"}).empty()) {
        return p.Error(recon::StrCat(f, ".", op),
                       "expected an object with apiVersion, kind and metadata.name");
      }
      edit.op = op == "create" ? Edit::Op::kCreate : Edit::Op::kUpdate;
      edit.object = o;
    }
    if (e.contains("delete")) {
      ++ops;
      const Json& d = e["delete"];
      RETURN_IF_ERROR(p.Keys(d, f + ".delete", {"apiVersion", "kind", "namespace", "name"}));
      if (!engine::Path(d, {"kind"}).is_string() || !engine::Path(d, {"name"}).is_string()) {
        return p.Error(f + ".delete", "expected kind and name");
      }
      edit.op = Edit::Op::kDelete;
      edit.object = d;
    }
    if (ops != 1) return p.Error(f, "expected exactly one of set, create, update, delete");
    out->push_back(std::move(edit));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Scenario> ParseScenario(std::string_view text, std::string_view origin, std::string_view dir) {
  Parser p(origin);
  auto parsed = engine::ParseJson(text);
  if (!parsed.ok())
    return absl::InvalidArgumentError(recon::StrCat(origin, ": ", Sv(parsed.status().message())));
  const Json& j = *parsed;
  RETURN_IF_ERROR(p.Keys(j, "scenario",
                         {"name", "description", "seed", "start", "facts", "objects", "samplesInventory",
                          "set", "imports", "probes", "faults", "latency", "edits", "report"}));
  Scenario s;
  if (j.contains("name")) RETURN_IF_ERROR(p.String(j["name"], "name", &s.name));
  if (j.contains("seed")) {
    if (!j["seed"].is_number_integer() || j["seed"].get<int64_t>() < 0) {
      return p.Error("seed", "expected a non-negative integer");
    }
    s.seed = j["seed"].get<uint64_t>();
  }
  std::string start = kDefaultStart;
  if (j.contains("start")) RETURN_IF_ERROR(p.String(j["start"], "start", &start));
  auto start_ns = engine::ParseRfc3339(start);
  if (!start_ns.ok()) return p.Error("start", Sv(start_ns.status().message()));
  s.start_ns = *start_ns;
  if (j.contains("facts")) {
    if (!j["facts"].is_object()) return p.Error("facts", "expected an object");
    if (j["facts"].contains("options")) return p.Error("facts.options", "put domain options under \"set\"");
    s.facts = j["facts"];
  }
  if (j.contains("objects")) {
    if (!j["objects"].is_array()) return p.Error("objects", "expected a list of objects");
    for (size_t i = 0; i < j["objects"].size(); ++i) {
      const Json& o = j["objects"][i];
      if (!o.is_object() || !o.contains("apiVersion") || !o.contains("kind") ||
          engine::GetString(o, {"metadata", "name"}).empty()) {
        return p.Error(recon::StrCat("objects[", i, "]"),
                       "expected an object with apiVersion, kind and metadata.name");
      }
      s.objects.push_back(o);
    }
  }
  if (j.contains("samplesInventory")) {
    RETURN_IF_ERROR(p.String(j["samplesInventory"], "samplesInventory", &s.samples_inventory));
    std::filesystem::path path(s.samples_inventory);
    if (path.is_relative() && !dir.empty())
      s.samples_inventory = (std::filesystem::path(dir) / path).string();
  }
  if (j.contains("set")) {
    if (!j["set"].is_object()) return p.Error("set", "expected an object of \"domain.key\": \"value\"");
    for (auto it = j["set"].begin(); it != j["set"].end(); ++it) {
      if (!it.value().is_string()) return p.Error(recon::StrCat("set.", it.key()), "expected a string value");
      s.options.emplace_back(it.key(), it.value().get<std::string>());
    }
  }
  if (j.contains("imports")) RETURN_IF_ERROR(ParseImports(p, j["imports"], &s.imports));
  if (j.contains("probes")) RETURN_IF_ERROR(ParseProbes(p, j["probes"], &s.probes));
  if (j.contains("faults")) RETURN_IF_ERROR(ParseFaults(p, j["faults"], &s.faults));
  if (j.contains("latency")) RETURN_IF_ERROR(ParseLatency(p, j["latency"], &s.latency));
  if (j.contains("edits")) RETURN_IF_ERROR(ParseEdits(p, j["edits"], &s.edits));
  if (j.contains("report")) {
    if (!j["report"].is_array()) return p.Error("report", "expected a list of {kind, namespace, name}");
    for (size_t i = 0; i < j["report"].size(); ++i) {
      const Json& r = j["report"][i];
      std::string f = recon::StrCat("report[", i, "]");
      RETURN_IF_ERROR(p.Keys(r, f, {"kind", "namespace", "name"}));
      ReportRef ref{engine::GetString(r, {"kind"}), engine::GetString(r, {"namespace"}),
                    engine::GetString(r, {"name"})};
      if (ref.kind.empty() || ref.name.empty()) return p.Error(f, "expected kind and name");
      s.report.push_back(std::move(ref));
    }
  }
  return s;
}

absl::StatusOr<Scenario> LoadScenario(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(recon::StrCat(path, ": cannot open"));
  std::stringstream buf;
  buf << in.rdbuf();
  std::string dir = std::filesystem::path(path).parent_path().string();
  return ParseScenario(buf.str(), path, dir);
}

}  // namespace recon::sim
