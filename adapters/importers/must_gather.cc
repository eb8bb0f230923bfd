#include "adapters/importers/must_gather.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "base/strings.h"
#include "crd/yaml_json.h"
#include "engine/json.h"
#include "engine/jsonl_reader.h"
#include "engine/time_format.h"

namespace recon::adapters::importers {
namespace {

namespace fs = std::filesystem;
using engine::Json;
using records::EventRecord;

constexpr char kClusterScoped[] = "cluster-scoped-resources";
constexpr char kNamespaces[] = "namespaces";
constexpr char kUndeclaredFiles[] = "files of resources no domain declares (--all-kinds reads them)";
constexpr char kUndeclared[] = "objects of kinds no domain declares (--all-kinds keeps them)";
constexpr char kTwice[] = "objects found twice (a list and a file of their own)";

bool IsGatherRoot(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p / kClusterScoped, ec) || fs::is_directory(p / kNamespaces, ec);
}

absl::StatusOr<std::string> ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return absl::NotFoundError(recon::StrCat(p.string(), ": cannot open"));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return absl::DataLossError(recon::StrCat(p.string(), ": read error"));
  return ss.str();
}

// (group, plural) a file's path names, relative to a gather root; nullopt
// for files outside the resource layout (logs, html, ...).
std::optional<std::pair<std::string, std::string>> ResourceOf(const std::vector<std::string>& parts) {
  auto group = [](const std::string& g) { return g == "core" ? std::string() : g; };
  auto stem = [](const std::string& f) { return f.substr(0, f.size() - 5); };  // ".yaml"
  const size_t n = parts.size();
  if (parts[0] == kClusterScoped) {
    if (n == 4) return std::make_pair(group(parts[1]), parts[2]);
    return std::nullopt;
  }
  if (parts[0] != kNamespaces || n < 3) return std::nullopt;
  if (n == 3) {
    if (stem(parts[2]) == parts[1]) return std::make_pair(std::string(), std::string("namespaces"));
    return std::nullopt;
  }
  // namespaces/<ns>/pods/<pod>/<pod>.yaml (oc adm inspect's pod layout).
  if (parts[2] == "pods") return std::make_pair(std::string(), std::string("pods"));
  if (n == 4) return std::make_pair(group(parts[2]), stem(parts[3]));
  if (n == 5) return std::make_pair(group(parts[2]), parts[3]);
  return std::nullopt;
}

struct Collected {
  std::set<std::tuple<std::string, std::string, std::string, std::string>> seen;
};

absl::Status AddObject(const Json& o, const std::string& where, int64_t time_ns, const KindFilter& filter,
                       Collected& c, ImportResult& out) {
  auto field = [&](std::string_view f, std::string_view what) {
    return absl::InvalidArgumentError(recon::StrCat(where, ": \"", f, "\": ", what));
  };
  if (!o.is_object()) return field("", "expected an object");
  std::string api = engine::GetString(o, {"apiVersion"});
  std::string kind = engine::GetString(o, {"kind"});
  std::string name = engine::GetString(o, {"metadata", "name"});
  if (api.empty()) return field("apiVersion", "missing; expected e.g. \"v1\" or \"group/v1\"");
  if (kind.empty()) return field("kind", "missing; expected the object's kind");
  if (name.empty()) return field("metadata.name", "missing; expected a non-empty string");
  ++out.read;
  EventRecord ev;
  engine::SplitApiVersion(api, &ev.object.group, &ev.object.version);
  if (!filter.Keeps(ev.object.group, kind)) {
    ++out.skipped[kUndeclared];
    return absl::OkStatus();
  }
  ev.time_ns = time_ns;
  ev.type = records::EventType::kAdded;
  ev.object.kind = kind;
  ev.object.name = name;
  ev.object.ns = engine::GetString(o, {"metadata", "namespace"});
  ev.object.uid = engine::GetString(o, {"metadata", "uid"});
  ev.object.resource_version = engine::GetString(o, {"metadata", "resourceVersion"});
  if (!c.seen.insert({ev.object.group, kind, ev.object.ns, name}).second) {
    ++out.skipped[kTwice];
    return absl::OkStatus();
  }
  ev.body = engine::Dump(o);
  out.events.push_back(std::move(ev));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<int64_t> ParseMustGatherTimestamp(std::string_view text, std::string_view source) {
  // The last non-blank line: oc writes the start, then the end of the gather.
  std::string_view last;
  size_t line_no = 0, n = 0;
  for (size_t pos = 0; pos <= text.size();) {
    size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view l = text.substr(pos, end - pos);
    ++n;
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ' || l.back() == '\t')) l.remove_suffix(1);
    if (!l.empty()) last = l, line_no = n;
    pos = end + 1;
  }
  if (last.empty()) return absl::InvalidArgumentError(recon::StrCat(source, ": empty; expected a time"));
  auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        recon::StrCat(source, ": line ", line_no, ": ", why,
                      "; expected a time as Go prints it (\"2026-11-21 10:20:30.5 +0000 UTC\") or RFC 3339"));
  };
  if (auto t = engine::ParseRfc3339(last); t.ok()) return *t;
  // "<date> <time> <+hhmm> <zone> [m=+<monotonic>]"
  std::vector<std::string_view> tok;
  for (size_t pos = 0; pos < last.size();) {
    size_t sp = std::min(last.find(' ', pos), last.size());
    if (sp > pos) tok.push_back(last.substr(pos, sp - pos));
    pos = sp + 1;
  }
  if (tok.size() < 3) return bad(recon::StrCat("\"", last, "\" is not a time"));
  std::string_view off = tok[2];
  if (off.size() != 5 || (off[0] != '+' && off[0] != '-'))
    return bad(recon::StrCat("\"", off, "\" is not a UTC offset"));
  std::string rfc = recon::StrCat(tok[0], "T", tok[1], off.substr(0, 3), ":", off.substr(3));
  auto t = engine::ParseRfc3339(rfc);
  if (!t.ok()) return bad(Sv(t.status().message()));
  return *t;
}

absl::StatusOr<ImportResult> DecodeMustGather(const std::string& dir, const KindFilter& filter,
                                              std::optional<int64_t> time_ns) {
  std::error_code ec;
  const fs::path top(dir);
  if (!fs::is_directory(top, ec)) return absl::NotFoundError(recon::StrCat(dir, ": not a directory"));
  // The image directories: DIR itself, or those inside must-gather.local.*.
  std::vector<fs::path> roots;
  if (IsGatherRoot(top)) {
    roots.push_back(top);
  } else {
    for (const auto& e : fs::directory_iterator(top, ec))
      if (e.is_directory() && IsGatherRoot(e.path())) roots.push_back(e.path());
    if (ec) return absl::InternalError(recon::StrCat(dir, ": ", ec.message()));
    std::sort(roots.begin(), roots.end());
  }
  if (roots.empty()) {
    return absl::InvalidArgumentError(
        recon::StrCat(dir, ": not a must-gather directory (neither it nor a directory inside holds ",
                      kClusterScoped, "/ or ", kNamespaces, "/)"));
  }
  if (!time_ns) {
    // oc writes `timestamp` beside the image directories; accept it inside one too.
    std::vector<fs::path> candidates = {top / "timestamp"};
    for (const auto& r : roots) candidates.push_back(r / "timestamp");
    for (const auto& c : candidates) {
      if (!fs::is_regular_file(c, ec)) continue;
      auto text = ReadFile(c);
      if (!text.ok()) return text.status();
      auto t = ParseMustGatherTimestamp(*text, c.string());
      if (!t.ok()) return t.status();
      time_ns = *t;
      break;
    }
    if (!time_ns) {
      return absl::InvalidArgumentError(recon::StrCat(
          dir,
          ": no timestamp file (oc adm must-gather writes one); --time gives the moment of the objects"));
    }
  }
  ImportResult out;
  Collected collected;
  for (const fs::path& root : roots) {
    std::vector<fs::path> files;
    for (const char* sub : {kClusterScoped, kNamespaces}) {
      if (!fs::is_directory(root / sub, ec)) continue;
      for (auto it = fs::recursive_directory_iterator(root / sub, ec); !ec && it != fs::end(it);
           it.increment(ec)) {
        if (it->is_regular_file() && it->path().extension() == ".yaml") files.push_back(it->path());
      }
      if (ec) return absl::InternalError(recon::StrCat((root / sub).string(), ": ", ec.message()));
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      std::vector<std::string> parts;
      for (const auto& p : f.lexically_relative(root)) parts.push_back(p.string());
      auto res = ResourceOf(parts);
      if (!res) continue;
      if (!filter.all_kinds && filter.ByResource(res->first, res->second) == nullptr) {
        ++out.skipped[kUndeclaredFiles];
        continue;
      }
      auto text = ReadFile(f);
      if (!text.ok()) return text.status();
      auto docs = crd::YamlDocumentsToJson(*text, f.string());
      if (!docs.ok()) return docs.status();
      for (size_t d = 0; d < docs->size(); ++d) {
        const Json& doc = (*docs)[d];
        std::string where = docs->size() > 1 ? recon::StrCat(f.string(), ": document ", d + 1) : f.string();
        const Json& items = engine::Path(doc, {"items"});
        if (absl::EndsWith(engine::GetString(doc, {"kind"}), "List")) {
          if (items.is_null()) continue;  // oc writes "items: []" as an empty list
          if (!items.is_array())
            return absl::InvalidArgumentError(
                recon::StrCat(where, ": \"items\": expected a list of objects"));
          for (size_t i = 0; i < items.size(); ++i) {
            if (auto s = AddObject(items[i], recon::StrCat(where, ": items[", i, "]"), *time_ns, filter,
                                   collected, out);
                !s.ok())
              return s;
          }
          continue;
        }
        if (auto s = AddObject(doc, where, *time_ns, filter, collected, out); !s.ok()) return s;
      }
    }
  }
  return out;
}

}  // namespace recon::adapters::importers
