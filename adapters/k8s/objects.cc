#include "adapters/k8s/objects.h"

#include <simdjson.h>

#include "base/strings.h"
#include "engine/jsonl_reader.h"

namespace recon::k8s {
namespace {

namespace od = simdjson::ondemand;

absl::Status Bad(std::string_view what, simdjson::error_code e) {
  return absl::InvalidArgumentError(recon::StrCat(what, ": ", simdjson::error_message(e)));
}

absl::Status ReadId(od::object obj, records::ObjectIdRecord* id, std::string* api_version) {
  for (auto field : obj) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return Bad("object", e);
    if (key == "apiVersion" || key == "kind") {
      std::string_view v;
      if (auto e = field.value().get_string().get(v)) return Bad(recon::StrCat("object.", key), e);
      if (key == "kind")
        id->kind = v;
      else
        *api_version = v;
    } else if (key == "metadata") {
      od::object md;
      if (auto e = field.value().get_object().get(md)) return Bad("object.metadata", e);
      for (auto mf : md) {
        std::string_view mk;
        if (auto e = mf.unescaped_key().get(mk)) return Bad("object.metadata", e);
        std::string* target = mk == "name"              ? &id->name
                              : mk == "namespace"       ? &id->ns
                              : mk == "uid"             ? &id->uid
                              : mk == "resourceVersion" ? &id->resource_version
                                                        : nullptr;
        if (!target) continue;
        std::string_view v;
        if (auto e = mf.value().get_string().get(v)) return Bad(recon::StrCat("object.metadata.", mk), e);
        *target = v;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<records::ObjectIdRecord> ObjectIdOf(std::string_view json) {
  thread_local od::parser parser;
  simdjson::padded_string padded(json);
  od::document doc;
  if (auto e = parser.iterate(padded).get(doc)) return Bad("object", e);
  od::object obj;
  if (auto e = doc.get_object().get(obj)) return Bad("object", e);
  records::ObjectIdRecord id;
  std::string api_version;
  if (auto s = ReadId(obj, &id, &api_version); !s.ok()) return s;
  if (api_version.empty()) return absl::InvalidArgumentError("object: apiVersion is missing");
  if (id.kind.empty()) return absl::InvalidArgumentError("object: kind is missing");
  if (id.name.empty())
    return absl::InvalidArgumentError(recon::StrCat("object ", id.kind, ": metadata.name is missing"));
  engine::SplitApiVersion(api_version, &id.group, &id.version);
  return id;
}

absl::StatusOr<ListPage> ParseListPage(std::string_view json, const engine::ResourceType& type) {
  thread_local simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::element root;
  std::string what = recon::StrCat("list of ", type.plural, type.group.empty() ? "" : ".", type.group);
  if (auto e = parser.parse(padded).get(root)) return Bad(what, e);
  ListPage page;
  std::string_view s;
  if (!root["metadata"]["resourceVersion"].get_string().get(s)) page.resource_version = s;
  if (!root["metadata"]["continue"].get_string().get(s)) page.continue_token = s;
  simdjson::dom::array items;
  if (auto e = root["items"].get_array().get(items)) {
    if (e == simdjson::NO_SUCH_FIELD || root["items"].is_null()) return page;  // an empty list may say null
    return Bad(recon::StrCat(what, ".items"), e);
  }
  // The raw text of each item is taken from a second, on-demand pass so
  // bodies stay as sent; the DOM pass validated the whole document.
  thread_local od::parser od_parser;
  od::document doc;
  if (auto e = od_parser.iterate(padded).get(doc)) return Bad(what, e);
  od::array arr;
  if (auto e = doc["items"].get_array().get(arr)) return Bad(recon::StrCat(what, ".items"), e);
  // Built-in lists omit each item's apiVersion and kind (kube-apiserver
  // sets them only on the list); whether an item has them is read from its
  // top level in the DOM, never from its text, where ownerReferences and
  // managedFields carry an "apiVersion" of their own.
  auto dom_item = items.begin();
  size_t i = 0;
  for (auto item : arr) {
    od::object obj;
    if (auto e = item.get_object().get(obj)) return Bad(recon::StrCat(what, ".items[", i, "]"), e);
    std::string_view raw;
    if (auto e = obj.raw_json().get(raw)) return Bad(recon::StrCat(what, ".items[", i, "]"), e);
    while (!raw.empty() && raw.back() != '}') raw.remove_suffix(1);
    simdjson::dom::element top = *dom_item;
    ++dom_item;
    const bool has_api_version = !top["apiVersion"].error();
    const bool has_kind = !top["kind"].error();
    ListedObject o;
    if (!has_api_version || !has_kind) {
      // Put them first, as a watch event has them.
      std::string_view rest = raw.substr(1);
      while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\n' || rest.front() == '\t' ||
                               rest.front() == '\r'))
        rest.remove_prefix(1);
      std::string head;
      if (!has_api_version) head = recon::StrCat("\"apiVersion\":\"", type.ApiVersion(), "\"");
      if (!has_kind) head = recon::StrCat(head, head.empty() ? "" : ",", "\"kind\":\"", type.kind, "\"");
      o.body = recon::StrCat("{", head, rest.front() == '}' ? "" : ",", rest);
    } else {
      o.body = raw;
    }
    auto id = ObjectIdOf(o.body);
    if (!id.ok())
      return absl::InvalidArgumentError(recon::StrCat(what, ".items[", i, "]: ", Sv(id.status().message())));
    o.id = std::move(*id);
    page.items.push_back(std::move(o));
    ++i;
  }
  return page;
}

std::string StatusError(int http_status, std::string_view body) {
  thread_local simdjson::dom::parser parser;
  simdjson::padded_string padded(body);
  simdjson::dom::element root;
  std::string_view kind, reason, message;
  if (!parser.parse(padded).get(root) && !root["kind"].get_string().get(kind) && kind == "Status") {
    if (root["reason"].get_string().get(reason)) reason = "";
    if (root["message"].get_string().get(message)) message = "";
    if (reason.empty()) reason = "Unknown";
    return recon::StrCat(reason, ": ", message);
  }
  std::string_view start = body.substr(0, 200);
  return recon::StrCat("HTTP ", http_status, start.empty() ? "" : ": ", start);
}

int StatusCode(std::string_view status_json) {
  thread_local simdjson::dom::parser parser;
  simdjson::padded_string padded(status_json);
  simdjson::dom::element root;
  int64_t code = 0;
  if (parser.parse(padded).get(root) || root["code"].get_int64().get(code)) return 0;
  return static_cast<int>(code);
}

}  // namespace recon::k8s
