#include "adapters/k8s/watch_stream.h"

#include <simdjson.h>

#include "base/strings.h"

namespace recon::k8s {
namespace {

std::string Shorten(std::string_view line) {
  constexpr size_t kMax = 200;
  if (line.size() <= kMax) return std::string(line);
  return recon::StrCat(line.substr(0, kMax), "... (", line.size(), " bytes)");
}

absl::Status Bad(std::string_view line, std::string_view what) {
  return absl::InvalidArgumentError(recon::StrCat("watch stream: ", what, " in line: ", Shorten(line)));
}

}  // namespace

absl::StatusOr<WatchEvent> ParseWatchLine(std::string_view line) {
  namespace od = simdjson::ondemand;
  // The DOM parse validates the whole line; on-demand then gives the raw
  // text of "object" so the body stays exactly as the server sent it.
  thread_local simdjson::dom::parser dom;
  thread_local od::parser parser;
  simdjson::padded_string padded(line);
  simdjson::dom::element root;
  if (auto e = dom.parse(padded).get(root)) return Bad(line, simdjson::error_message(e));
  if (!root.is_object()) return Bad(line, "expected a JSON object");
  std::string_view type;
  if (root["type"].get_string().get(type)) return Bad(line, "\"type\" missing or not a string");
  simdjson::dom::element obj;
  if (root["object"].get(obj) || !obj.is_object()) return Bad(line, "\"object\" missing or not an object");
  WatchEvent ev;
  ev.type = type;
  if (ev.type != "ADDED" && ev.type != "MODIFIED" && ev.type != "DELETED" && ev.type != "BOOKMARK" &&
      ev.type != "ERROR") {
    return Bad(line, recon::StrCat("unknown event type \"", ev.type, "\""));
  }
  od::document doc;
  if (auto e = parser.iterate(padded).get(doc)) return Bad(line, simdjson::error_message(e));
  od::object object;
  if (auto e = doc["object"].get_object().get(object)) return Bad(line, simdjson::error_message(e));
  std::string_view raw;
  if (auto e = object.raw_json().get(raw)) return Bad(line, simdjson::error_message(e));
  // raw_json of a value includes trailing whitespace up to the next token.
  while (!raw.empty() &&
         (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t'))
    raw.remove_suffix(1);
  ev.object = raw;
  return ev;
}

absl::StatusOr<std::vector<WatchEvent>> WatchStreamParser::Feed(std::string_view bytes) {
  if (!failed_.ok()) return failed_;
  std::vector<WatchEvent> out;
  while (!bytes.empty()) {
    size_t nl = bytes.find('\n');
    std::string_view piece = bytes.substr(0, nl);
    if (partial_.size() + piece.size() > max_line_) {
      failed_ = absl::ResourceExhaustedError(
          recon::StrCat("watch stream: line ", line_no_ + 1, " exceeds ", max_line_, " bytes"));
      return failed_;
    }
    if (nl == std::string_view::npos) {
      partial_.append(piece);
      break;
    }
    bytes.remove_prefix(nl + 1);
    ++line_no_;
    std::string_view line = piece;
    if (!partial_.empty()) {
      partial_.append(piece);
      line = partial_;
    }
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (!line.empty()) {
      auto ev = ParseWatchLine(line);
      if (!ev.ok()) {
        failed_ = ev.status();
        partial_.clear();
        return failed_;
      }
      out.push_back(std::move(*ev));
    }
    partial_.clear();
  }
  return out;
}

}  // namespace recon::k8s
