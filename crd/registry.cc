#include "crd/registry.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "base/strings.h"
#include "crd/builtin_data.h"
#include "crd/field_error.h"
#include "crd/schema.h"
#include "crd/yaml_json.h"

namespace recon::crd {
namespace {

const Json& Get(const Json& j, const char* key) { return engine::Path(j, {key}); }
std::string Str(const Json& j, const char* key) { return engine::GetString(j, {key}); }

std::vector<std::string> Strings(const Json& j) {
  std::vector<std::string> out;
  if (j.is_array())
    for (const Json& x : j)
      if (x.is_string()) out.push_back(x.get<std::string>());
  return out;
}

std::string KeyOf(std::string_view group, std::string_view version, std::string_view kind) {
  return StrCat(group, "/", version, "/", kind);
}

std::string Lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

}  // namespace

std::string FieldError::ToString() const { return StrCat(field, ": ", message); }

absl::Status Registry::AddYaml(std::string_view text, std::string_view source) {
  auto docs = YamlDocumentsToJson(text, source);
  if (!docs.ok()) return docs.status();
  std::map<std::string, Kind> added;
  for (const Json& doc : *docs) {
    if (Str(doc, "kind") != "CustomResourceDefinition") continue;
    const std::string name = Str(Get(doc, "metadata"), "name");
    if (Str(doc, "apiVersion") != "apiextensions.k8s.io/v1") {
      return absl::InvalidArgumentError(StrCat(source, ": CustomResourceDefinition \"", name,
                                               "\": apiVersion must be apiextensions.k8s.io/v1"));
    }
    const Json& spec = Get(doc, "spec");
    const Json& names = Get(spec, "names");
    Kind base;
    base.group = Str(spec, "group");
    base.kind = Str(names, "kind");
    base.plural = Str(names, "plural");
    base.singular = Str(names, "singular");
    if (base.singular.empty()) base.singular = Lower(base.kind);
    base.list_kind = Str(names, "listKind");
    if (base.list_kind.empty()) base.list_kind = base.kind + "List";
    base.short_names = Strings(Get(names, "shortNames"));
    base.categories = Strings(Get(names, "categories"));
    base.namespaced = Str(spec, "scope") != "Cluster";
    if (base.kind.empty() || base.plural.empty() || base.group.empty()) {
      return absl::InvalidArgumentError(StrCat(source, ": CustomResourceDefinition \"", name,
                                               "\": spec.group, spec.names.kind and "
                                               "spec.names.plural are required"));
    }
    const Json& versions = Get(spec, "versions");
    if (!versions.is_array() || versions.empty()) {
      return absl::InvalidArgumentError(
          StrCat(source, ": CustomResourceDefinition \"", name, "\": spec.versions is required"));
    }
    for (const Json& v : versions) {
      const Json& served = Get(v, "served");
      if (served.is_boolean() && !served.get<bool>()) continue;
      Kind k = base;
      k.version = Str(v, "name");
      const Json& storage = Get(v, "storage");
      k.storage = storage.is_boolean() && storage.get<bool>();
      k.status_subresource = Get(Get(v, "subresources"), "status").is_object();
      k.printer_columns = Get(v, "additionalPrinterColumns");
      const Json& schema = Get(Get(v, "schema"), "openAPIV3Schema");
      const std::string where =
          StrCat(source, ": CustomResourceDefinition \"", name, "\" version ", k.version);
      if (!schema.is_object()) {
        return absl::InvalidArgumentError(StrCat(where, ": schema.openAPIV3Schema is required"));
      }
      auto compiled = Schema::Compile(schema, where);
      if (!compiled.ok()) return compiled.status();
      k.schema = std::move(*compiled);
      added[KeyOf(k.group, k.version, k.kind)] = std::move(k);
    }
  }
  // All or nothing: a file with one bad CRD adds none of them.
  for (auto& [key, kind] : added) kinds_[key] = std::move(kind);
  return absl::OkStatus();
}

absl::Status Registry::AddDir(const std::string& dir) {
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string ext = e.path().extension().string();
    if (e.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json")) files.push_back(e.path());
  }
  if (ec) return absl::NotFoundError(StrCat(dir, ": ", ec.message()));
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) return absl::NotFoundError(StrCat(f.string(), ": cannot read"));
    std::stringstream ss;
    ss << in.rdbuf();
    if (auto s = AddYaml(ss.str(), f.string()); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<Registry> Registry::Builtin() {
  Registry r;
  for (const auto& [name, text] : BuiltinCrdFiles()) {
    if (auto s = r.AddYaml(text, StrCat("crd/data/", name)); !s.ok()) return s;
  }
  return r;
}

const Kind* Registry::Find(std::string_view group, std::string_view version, std::string_view kind) const {
  auto it = kinds_.find(KeyOf(group, version, kind));
  return it == kinds_.end() ? nullptr : &it->second;
}

const Kind* Registry::FindByPlural(std::string_view group, std::string_view version,
                                   std::string_view plural) const {
  for (const auto& [key, k] : kinds_)
    if (k.group == group && k.version == version && k.plural == plural) return &k;
  return nullptr;
}

std::vector<const Kind*> Registry::kinds() const {
  std::vector<const Kind*> out;
  for (const auto& [key, k] : kinds_) out.push_back(&k);
  std::sort(out.begin(), out.end(), [](const Kind* a, const Kind* b) {
    return std::tie(a->group, a->kind, a->version) < std::tie(b->group, b->kind, b->version);
  });
  return out;
}

std::vector<FieldError> Registry::Admit(const Kind& kind, Json& object, const Json* old,
                                        std::vector<std::string>* dropped) const {
  if (!kind.schema) return {};
  kind.schema->Default(object);
  kind.schema->Prune(object, dropped);
  return kind.schema->Validate(object, old);
}

std::string InvalidMessage(const Kind& kind, std::string_view name, const std::vector<FieldError>& errors) {
  std::string qualified = kind.group.empty() ? kind.kind : StrCat(kind.kind, ".", kind.group);
  // utilerrors.NewAggregate drops repeated messages; one error prints bare.
  std::vector<std::string> msgs;
  for (const FieldError& e : errors) {
    std::string m = e.ToString();
    if (std::find(msgs.begin(), msgs.end(), m) == msgs.end()) msgs.push_back(std::move(m));
  }
  std::string body;
  if (msgs.size() == 1) {
    body = msgs[0];
  } else {
    body = "[";
    for (size_t i = 0; i < msgs.size(); ++i) StrAppend(&body, i ? ", " : "", msgs[i]);
    body += "]";
  }
  return StrCat(qualified, " ", GoQuote(name), " is invalid: ", body);
}

}  // namespace recon::crd
