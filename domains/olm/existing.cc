// §9.1 the @existing catalog: one entry per installed (non-copied) CSV.
#include <algorithm>
#include <map>
#include <set>

#include "base/strings.h"
#include "domains/olm/ns_index.h"
#include "domains/olm/reducer.h"

namespace recon::olm {
namespace {

std::string S(const Json& j, std::string_view k) { return engine::GetString(j, {k}); }

// "plural.group" CRD names carry the group after the first dot.
std::vector<Gvk> Apis(const Json& spec, std::string_view list) {
  std::vector<Gvk> out;
  for (const char* kind : {"customresourcedefinitions", "apiservicedefinitions"}) {
    const Json& l = engine::Path(spec, {kind, list});
    if (!l.is_array()) continue;
    for (const Json& d : l) {
      Gvk g;
      if (std::string_view(kind) == "customresourcedefinitions") {
        std::string name = S(d, "name");
        size_t dot = name.find('.');
        g.group = dot == std::string::npos ? "" : name.substr(dot + 1);
      } else {
        g.group = S(d, "group");
      }
      g.version = S(d, "version");
      g.kind = S(d, "kind");
      out.push_back(std::move(g));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

std::optional<InstalledCsv> InstalledCsvOf(const engine::Object& o, const Json& j) {
  if (!j.is_object()) return std::nullopt;
  if (S(engine::Path(j, {"status"}), "reason") == "Copied" ||
      !engine::GetString(j, {"metadata", "labels", "olm.copiedFrom"}).empty())
    return std::nullopt;
  InstalledCsv out;
  {
    ExistingCsv& x = out.csv;
    Entry& e = x.entry;
    e.name = std::string(o.name());
    const Json& spec = engine::Path(j, {"spec"});
    e.version_text = S(spec, "version");
    if (auto v = ParseVersionTolerant(e.version_text); v.ok()) e.version = std::move(*v);
    e.provides = Apis(spec, "owned");
    for (Gvk& g : Apis(spec, "required")) {
      Predicate p;
      p.gvk = std::move(g);
      e.dependencies.push_back(std::move(p));
    }
    // The subscription whose installedCSV names the CSV, and the package it
    // implies, are added per sync (SyncNamespace): they change without the
    // CSV changing. Properties OLM records on the CSV win over that package.
    std::string props = engine::GetString(j, {"metadata", "annotations", "operatorframework.io/properties"});
    if (!props.empty()) {
      if (auto pj = engine::ParseJson(props); pj.ok()) {
        const Json& list = engine::Path(*pj, {"properties"});
        if (list.is_array()) {
          auto all = std::make_shared<std::vector<PropertyText>>();
          for (const Json& p : list) {
            std::string type = S(p, "type");
            const Json& value = engine::Path(p, {"value"});
            all->push_back({type, engine::Dump(value)});
            if (type == "olm.package") {
              e.package = S(value, "packageName");
              out.package_from_properties = true;
              if (auto v = ParseVersionTolerant(S(value, "version")); v.ok()) e.version = std::move(*v);
            } else if (type == "olm.gvk") {
              e.provides.push_back({S(value, "group"), S(value, "version"), S(value, "kind")});
            } else if (type == "olm.label") {
              e.labels.push_back(S(value, "label"));
            } else if (auto pred = PredicateFromProperty(type, all->back().value); pred.ok() && *pred) {
              e.dependencies.push_back(std::move(**pred));
            }
          }
          std::sort(e.provides.begin(), e.provides.end());
          e.provides.erase(std::unique(e.provides.begin(), e.provides.end()), e.provides.end());
          e.properties = std::move(all);
        }
      }
    }
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> FailedChainCsvs(const NsIndex& x, std::string_view ns) {
  std::map<std::string_view, std::string_view> replaced_by;
  for (const auto& [name, cv] : x.csvs)
    if (!cv.replaces.empty()) replaced_by[cv.replaces] = name;
  std::vector<std::string> out;
  for (const auto& [name, cv] : x.csvs) {
    if (!cv.installed) continue;  // copied: not walked
    std::set<std::string_view> seen;
    std::string_view cur = name;
    for (auto next = replaced_by.find(cur); next != replaced_by.end(); next = replaced_by.find(cur)) {
      auto c = x.csvs.find(cur);
      const std::string& phase = c->second.phase;
      if (phase != "Replacing")
        return absl::FailedPreconditionError(
            StrCat("csv ", ns, "/", cur, " in phase ", phase, " instead of Replacing"));
      if (!seen.insert(cur).second)
        return absl::FailedPreconditionError(StrCat("csv ", ns, "/", cur, " has already been seen"));
      cur = next->second;
    }
    auto last = x.csvs.find(cur);
    if (cv.phase == "Replacing" && last != x.csvs.end() && last->second.phase == "Failed") out.push_back(name);
  }
  return out;
}

}  // namespace recon::olm
