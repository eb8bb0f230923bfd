#include "engine/jsonl_reader.h"

#include <simdjson.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "engine/json.h"
#include "engine/time_format.h"

namespace recon::engine {
namespace od = simdjson::ondemand;

namespace {

enum Field : uint32_t {
  kTime = 1 << 0,
  kType = 1 << 1,
  kObject = 1 << 2,
  kTimer = 1 << 3,
  kProbe = 1 << 4,
  kTarget = 1 << 5,
  kOk = 1 << 6,
  kStatus = 1 << 7,
  kDetail = 1 << 8,
  kData = 1 << 9,
  kAction = 1 << 10,
  kError = 1 << 11,
  kFacts = 1 << 12,
  kName = 1 << 13,
  kDigest = 1 << 14,
  kFiles = 1 << 15,
  kSeq = 1 << 16,
  kResourceVersion = 1 << 17,
  kUid = 1 << 18,
  kWarnings = 1 << 19,
};

struct FieldName {
  std::string_view name;
  Field bit;
};
constexpr FieldName kFields[] = {
    {"time", kTime},   {"type", kType},         {"object", kObject},
    {"timer", kTimer}, {"probe", kProbe},       {"target", kTarget},
    {"ok", kOk},       {"status", kStatus},     {"detail", kDetail},
    {"data", kData},   {"action", kAction},     {"error", kError},
    {"facts", kFacts}, {"name", kName},         {"digest", kDigest},
    {"files", kFiles}, {"seq", kSeq},           {"resourceVersion", kResourceVersion},
    {"uid", kUid},     {"warnings", kWarnings},
};

// Fields each type may carry beyond time/type/seq.
uint32_t AllowedFields(records::EventType t) {
  switch (t) {
    case records::EventType::kAdded:
    case records::EventType::kModified:
    case records::EventType::kDeleted:
      return kObject;
    case records::EventType::kTimer:
      return kTimer;
    case records::EventType::kProbe:
      return kProbe | kTarget | kOk | kStatus | kDetail | kData;
    case records::EventType::kActionResult:
      return kAction | kOk | kStatus | kError | kResourceVersion | kUid | kWarnings;
    case records::EventType::kCluster:
      return kFacts;
    case records::EventType::kContent:
      return kName | kDigest | kFiles;
  }
  return 0;
}

uint32_t RequiredFields(records::EventType t) {
  switch (t) {
    case records::EventType::kAdded:
    case records::EventType::kModified:
    case records::EventType::kDeleted:
      return kObject;
    case records::EventType::kTimer:
      return kTimer;
    case records::EventType::kProbe:
      return kProbe | kTarget | kOk;
    case records::EventType::kActionResult:
      return kAction | kOk;
    case records::EventType::kCluster:
      return kFacts;
    case records::EventType::kContent:
      return kName;
  }
  return 0;
}

// "an Added event", "a Timer event".
std::string_view Article(std::string_view word) {
  return !word.empty() && std::string_view("AEIOU").find(word[0]) != std::string_view::npos ? "an" : "a";
}

std::string_view NameOf(uint32_t bit) {
  for (const auto& f : kFields) {
    if (f.bit == bit) return f.name;
  }
  return "?";
}

std::string SimdError(simdjson::error_code e) {
  switch (e) {
    case simdjson::UTF8_ERROR:
      return "invalid UTF-8";
    case simdjson::TAPE_ERROR:
    case simdjson::INCOMPLETE_ARRAY_OR_OBJECT:
      return "malformed JSON (unbalanced or truncated)";
    case simdjson::UNCLOSED_STRING:
      return "malformed JSON (unterminated string)";
    default:
      return recon::StrCat("malformed JSON (", simdjson::error_message(e), ")");
  }
}

// simdjson reports "ended early" both for a truncated line and for text
// after a complete object. On that (error) path only, a small scan tells
// them apart: true if the top-level value closes before the line ends.
bool ClosesBeforeEnd(std::string_view line) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '{' || c == '[')
      ++depth;
    else if (c == '}' || c == ']') {
      if (--depth == 0) return line.find_first_not_of(" \t\r", i + 1) != std::string_view::npos;
    }
  }
  return false;
}

// Padded copy for simdjson; reused across lines.
struct Padded {
  std::string buf;
  std::string_view Fill(std::string_view s) {
    buf.assign(s);
    buf.append(simdjson::SIMDJSON_PADDING, '\0');
    return std::string_view(buf.data(), s.size());
  }
};

}  // namespace

void SplitApiVersion(std::string_view api_version, std::string* group, std::string* version) {
  size_t slash = api_version.find('/');
  if (slash == std::string_view::npos) {
    group->clear();
    *version = api_version;
  } else {
    *group = api_version.substr(0, slash);
    *version = api_version.substr(slash + 1);
  }
}

struct JsonlReader::Impl {
  od::parser parser;
  od::parser inner;
  Padded line_buf;
  Padded object_buf;

  absl::Status Err(size_t line, std::string_view field, std::string_view what) {
    if (field.empty()) return absl::InvalidArgumentError(recon::StrCat("line ", line, ": ", what));
    return absl::InvalidArgumentError(recon::StrCat("line ", line, ": \"", field, "\": ", what));
  }

  // Reads identity fields out of an object's raw JSON.
  absl::Status ParseIdentity(std::string_view raw, size_t line, records::ObjectIdRecord* id) {
    std::string_view json = object_buf.Fill(raw);
    od::document doc;
    if (auto e = inner.iterate(json.data(), json.size(), object_buf.buf.size()).get(doc)) {
      return Err(line, "object", SimdError(e));
    }
    od::object obj;
    if (auto e = doc.get_object().get(obj)) return Err(line, "object", SimdError(e));
    std::string api_version;
    bool have_api = false, have_kind = false, have_name = false;
    for (auto field : obj) {
      std::string_view key;
      if (auto e = field.unescaped_key().get(key)) return Err(line, "object", SimdError(e));
      if (key == "apiVersion") {
        std::string_view v;
        if (field.value().get_string().get(v) || v.empty())
          return Err(line, "object.apiVersion", "expected a non-empty string");
        api_version = v;
        have_api = true;
      } else if (key == "kind") {
        std::string_view v;
        if (field.value().get_string().get(v) || v.empty())
          return Err(line, "object.kind", "expected a non-empty string");
        id->kind = v;
        have_kind = true;
      } else if (key == "metadata") {
        od::object md;
        if (field.value().get_object().get(md)) return Err(line, "object.metadata", "expected an object");
        for (auto mf : md) {
          std::string_view mk;
          if (auto e = mf.unescaped_key().get(mk)) return Err(line, "object.metadata", SimdError(e));
          std::string* target = nullptr;
          if (mk == "name")
            target = &id->name;
          else if (mk == "namespace")
            target = &id->ns;
          else if (mk == "uid")
            target = &id->uid;
          else if (mk == "resourceVersion")
            target = &id->resource_version;
          if (target == nullptr) continue;
          std::string_view v;
          if (mf.value().get_string().get(v)) {
            return Err(line, recon::StrCat("object.metadata.", mk), "expected a string");
          }
          *target = v;
          if (mk == "name") have_name = !v.empty();
        }
      }
    }
    if (!have_api) return Err(line, "object.apiVersion", "missing; expected e.g. \"v1\" or \"group/v1\"");
    if (!have_kind) return Err(line, "object.kind", "missing; expected the object's kind");
    if (!have_name) return Err(line, "object.metadata.name", "missing; expected a non-empty string");
    SplitApiVersion(api_version, &id->group, &id->version);
    return absl::OkStatus();
  }

  // The fields of a line's object that are not the event's own.
  struct Fields {
    uint32_t seen = 0;
    std::string type_name, time_text, object_raw;
  };

  absl::StatusOr<records::EventRecord> Parse(std::string_view line, size_t line_no) {
    std::string_view json = line_buf.Fill(line);
    od::document doc;
    if (auto e = parser.iterate(json.data(), json.size(), line_buf.buf.size()).get(doc)) {
      return Err(line_no, "", SimdError(e));
    }
    od::object obj;
    if (auto e = doc.get_object().get(obj)) {
      if (e == simdjson::INCORRECT_TYPE) return Err(line_no, "", "expected a JSON object");
      if (ClosesBeforeEnd(line)) return Err(line_no, "", "unexpected text after the JSON object");
      return Err(line_no, "", SimdError(e));
    }
    records::EventRecord ev;
    Fields f;
    for (auto field : obj) {
      std::string_view key;
      if (auto e = field.unescaped_key().get(key)) return Err(line_no, "", SimdError(e));
      uint32_t bit = 0;
      for (const auto& k : kFields) {
        if (k.name == key) bit = k.bit;
      }
      if (bit == 0) return Err(line_no, key, "unknown field");
      if (f.seen & bit) return Err(line_no, key, "appears twice");
      f.seen |= bit;
      od::value v;
      if (auto e = field.value().get(v)) return Err(line_no, key, SimdError(e));
      if (auto st = ReadField(line_no, key, bit, v, &ev, &f); !st.ok()) return st;
    }
    const char* trailing = nullptr;
    if (doc.current_location().get(trailing) == simdjson::SUCCESS) {
      return Err(line_no, "", "unexpected text after the JSON object");
    }
    if (auto st = CheckFields(line_no, f, &ev); !st.ok()) return st;
    if (ev.type == records::EventType::kContent) {
      if (auto st = CheckContent(line_no, f, &ev); !st.ok()) return st;
    }
    return ev;
  }

  // One field's value into the event (or *f), checked against its type.
  absl::Status ReadField(size_t line_no, std::string_view key, uint32_t bit, od::value& v,
                         records::EventRecord* ev, Fields* f) {
    std::string_view s;
    switch (bit) {
      case kTime:
        if (v.get_string().get(s)) return Err(line_no, key, "expected an RFC 3339 time string");
        f->time_text = s;
        break;
      case kType:
        if (v.get_string().get(s)) return Err(line_no, key, "expected a string");
        f->type_name = s;
        break;
      case kObject: {
        od::object o;
        if (v.get_object().get(o)) return Err(line_no, key, "expected a JSON object");
        std::string_view raw;
        if (auto e = o.raw_json().get(raw)) return Err(line_no, key, SimdError(e));
        f->object_raw = raw;
        break;
      }
      case kTimer:
      case kProbe:
      case kTarget:
      case kDetail:
      case kAction:
      case kError:
      case kName:
      case kDigest:
      case kResourceVersion:
      case kUid: {
        if (v.get_string().get(s)) return Err(line_no, key, "expected a string");
        std::string* out = bit == kTimer             ? &ev->timer
                           : bit == kProbe           ? &ev->probe.name
                           : bit == kTarget          ? &ev->probe.target
                           : bit == kDetail          ? &ev->probe.detail
                           : bit == kAction          ? &ev->action_result.action
                           : bit == kError           ? &ev->action_result.error
                           : bit == kName            ? &ev->content_name
                           : bit == kResourceVersion ? &ev->action_result.resource_version
                           : bit == kUid             ? &ev->action_result.uid
                                                     : &ev->content_digest;
        *out = s;
        break;
      }
      case kOk: {
        bool b;
        if (v.get_bool().get(b)) return Err(line_no, key, "expected true or false");
        ev->probe.ok = ev->action_result.ok = b;
        break;
      }
      case kStatus: {
        int64_t n;
        if (v.get_int64().get(n) || n < 0 || n > 999)
          return Err(line_no, key, "expected an HTTP status code");
        ev->probe.status = ev->action_result.status = static_cast<int32_t>(n);
        break;
      }
      case kSeq: {
        uint64_t n;
        if (v.get_uint64().get(n)) return Err(line_no, key, "expected a positive integer");
        break;  // export writes it; import re-assigns
      }
      case kData: {
        od::json_type t;
        if (auto e = v.type().get(t)) return Err(line_no, key, SimdError(e));
        std::string_view raw;
        if (t == od::json_type::object) {
          od::object o;
          if (v.get_object().get(o) || o.raw_json().get(raw)) return Err(line_no, key, "malformed JSON");
        } else if (t == od::json_type::array) {
          od::array a;
          if (v.get_array().get(a) || a.raw_json().get(raw)) return Err(line_no, key, "malformed JSON");
        } else {
          raw = v.raw_json_token();
          while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t')) raw.remove_suffix(1);
        }
        ev->probe.data = raw;
        break;
      }
      case kWarnings: {
        od::array a;
        std::string_view raw;
        if (v.get_array().get(a) || a.raw_json().get(raw))
          return Err(line_no, key, "expected an array of strings");
        // Rare (a write the server warned about): checked on a parsed copy,
        // since the raw text is what is kept.
        auto parsed = ParseJson(raw);
        if (!parsed.ok() ||
            !std::all_of(parsed->begin(), parsed->end(), [](const Json& w) { return w.is_string(); }))
          return Err(line_no, key, "expected an array of strings");
        while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t')) raw.remove_suffix(1);
        if (raw != "[]") ev->action_result.warnings = raw;
        break;
      }
      case kFacts: {
        od::object o;
        if (v.get_object().get(o)) return Err(line_no, key, "expected a JSON object");
        std::string_view raw;
        if (auto e = o.raw_json().get(raw)) return Err(line_no, key, SimdError(e));
        ev->cluster_facts = raw;
        break;
      }
      case kFiles: {
        od::object o;
        if (v.get_object().get(o)) return Err(line_no, key, "expected an object of path -> file text");
        for (auto f : o) {
          std::string_view path, text;
          if (auto e = f.unescaped_key().get(path)) return Err(line_no, key, SimdError(e));
          std::string p(path);
          if (f.value().get_string().get(text)) {
            return Err(line_no, recon::StrCat("files.", p), "expected the file's text as a string");
          }
          ev->content_files.emplace_back(std::move(p), std::string(text));
        }
        break;
      }
    }
    return absl::OkStatus();
  }

  // The type and time, the fields the type allows and needs, the object's identity.
  absl::Status CheckFields(size_t line_no, Fields& f, records::EventRecord* ev) {
    const uint32_t seen = f.seen;
    const std::string& type_name = f.type_name;
    if (!(seen & kType)) {
      return Err(
          line_no, "type",
          "missing; expected one of Added, Modified, Deleted, Timer, Probe, ActionResult, Cluster, Content");
    }
    auto type = records::ParseEventType(type_name);
    if (!type) {
      return Err(line_no, "type",
                 "expected one of Added, Modified, Deleted, Timer, Probe, ActionResult, Cluster, Content");
    }
    ev->type = *type;
    if (!(seen & kTime)) return Err(line_no, "time", "missing; expected an RFC 3339 time string");
    auto t = ParseRfc3339(f.time_text);
    if (!t.ok()) return Err(line_no, "time", Sv(t.status().message()));
    ev->time_ns = *t;
    uint32_t extra = seen & ~(AllowedFields(ev->type) | kTime | kType | kSeq);
    if (extra) {
      return Err(line_no, NameOf(extra & (~extra + 1)),
                 recon::StrCat("not a field of ", Article(type_name), " ", type_name, " event"));
    }
    uint32_t missing = RequiredFields(ev->type) & ~seen;
    if (missing) {
      return Err(line_no, NameOf(missing & (~missing + 1)),
                 recon::StrCat("missing; ", Article(type_name), " ", type_name, " event needs it"));
    }
    if (seen & kObject) {
      if (auto s = ParseIdentity(f.object_raw, line_no, &ev->object); !s.ok()) return s;
      ev->body = std::move(f.object_raw);
    }
    if (ev->type == records::EventType::kTimer && ev->timer.empty())
      return Err(line_no, "timer", "expected a timer name");
    if (ev->type == records::EventType::kProbe && ev->probe.name.empty())
      return Err(line_no, "probe", "expected a probe name");
    return absl::OkStatus();
  }

  // A Content event's files (sorted, each once) and their digest; or a
  // reference by digest to content recorded earlier.
  absl::Status CheckContent(size_t line_no, const Fields& f, records::EventRecord* ev) {
    if (ev->content_name.empty()) return Err(line_no, "name", "expected a content name");
    if (!(f.seen & kFiles)) {
      // A reference to content recorded earlier in the same store.
      if (ev->content_digest.empty())
        return Err(line_no, "files", "missing; a Content event needs files or a digest");
      return absl::OkStatus();
    }
    std::sort(ev->content_files.begin(), ev->content_files.end());
    for (size_t i = 1; i < ev->content_files.size(); ++i) {
      if (ev->content_files[i].first == ev->content_files[i - 1].first) {
        return Err(line_no, recon::StrCat("files.", ev->content_files[i].first), "appears twice");
      }
    }
    std::string digest = records::ContentDigest(ev->content_files);
    if (!ev->content_digest.empty() && ev->content_digest != digest) {
      return Err(line_no, "digest", recon::StrCat("does not match the files (computed ", digest, ")"));
    }
    ev->content_digest = digest;
    return absl::OkStatus();
  }
};

JsonlReader::JsonlReader() : impl_(std::make_unique<Impl>()) {}
JsonlReader::~JsonlReader() = default;

absl::StatusOr<records::EventRecord> JsonlReader::ParseLine(std::string_view line, size_t line_no) {
  return impl_->Parse(line, line_no);
}

absl::StatusOr<std::vector<ParsedLine>> JsonlReader::ParseAll(std::string_view data, std::string_view source,
                                                              const ProgressFn& progress) {
  std::vector<ParsedLine> out;
  size_t pos = 0, line_no = 0, last_report = 0;
  while (pos < data.size()) {
    size_t end = data.find('\n', pos);
    if (end == std::string_view::npos) end = data.size();
    std::string_view line = data.substr(pos, end - pos);
    ++line_no;
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    auto ev = impl_->Parse(line, line_no);
    if (!ev.ok()) {
      return absl::InvalidArgumentError(recon::StrCat(source, ": ", ev.status().message()));
    }
    out.push_back({std::move(*ev), line_no});
    if (progress && pos - last_report > (1 << 20)) {
      progress(std::min(pos, data.size()), out.size());
      last_report = pos;
    }
  }
  if (progress) progress(data.size(), out.size());
  return out;
}

}  // namespace recon::engine
